//! The "routers" generation of the C API (Dynamo v1.3/v1.4 line): a router
//! pair handle, prefill/decode routing over the candidate pods, request
//! bookkeeping and prefill reservations (bookings).
//!
//! Names and signatures of create_routers, route_prefill_request,
//! route_decode_request, add_request, mark_prefill_complete, free_request,
//! destroy, free_routing_result and CRoutingResult follow Dynamo's
//! lib/bindings/c/src/lib.rs on main; add_request_with_cache_namespace and
//! the CRoutingResult cache_namespace fields follow Dynamo's change that
//! added cache namespaces. The four prefill reservation functions were not
//! found in any published Dynamo source; their names are derived from the
//! Go wrappers that call them (see README.md).
//!
//! Behaviour the product depends on is Dynamo's at the v1.4.0 branch cut
//! (lib/bindings/c/src/lib.rs at e147ceeac056, unchanged since 636ad0d7c6b9):
//! - add_request / add_request_with_cache_namespace, mark_prefill_complete
//!   and free_request return Ok for an unknown or duplicate request id: the
//!   router's SequenceError is only logged. The double does the same and
//!   counts each such call (dynamo_double_ignored_calls), so a test can
//!   show the product never needs their error.
//! - create_routers ignores enforce_disagg (deprecated since 38ed7b2ec) and
//!   builds a fresh runtime per call that destroy never frees (the runtime
//!   is held in a ManuallyDrop): dynamo_double_router_runtimes counts them.
//! - Routing calls may run concurrently on one handle (shared references
//!   and block_on on a runtime handle); destroy must not overlap any call.
//! - Pods JSON that does not parse is logged and routing goes on without a
//!   filter; the double does that too and counts a violation.
//!
//! Variants (cargo features, turned into cfgs by build.rs; README.md):
//! cfg(routers_result) is the CRoutingResult layout ("5", "7", "9"),
//! cfg(routers_add) whether add_request_with_cache_namespace exists ("8")
//! or only add_request ("6"), and cfg(reservation) the prefill reservation
//! form: "none", "4" (begin / route with reservation / cancel / release),
//! "2" (route with reservation / cancel; mark_prefill_complete and
//! free_request release) or "timeout" (as "2", the route call taking a
//! sixth timeout_ms). A function a variant lacks is not exported at all,
//! as in the library it stands for.
//!
//! Deterministic routing: with candidate pods, the pod at index
//! (fnv1a64(role + prompt) mod pod count) wins and its worker id is
//! fnv1a64(podName); without pods, the worker id is fnv1a64(role + prompt)
//! mod DYNAMO_DOUBLE_WORKERS.

use std::collections::HashMap;
use std::os::raw::c_char;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::common::{self, c_str, lock};
use crate::control;
use crate::json::{self, Value};

/// Result codes, as in Dynamo (ErrBackpressure arrived later than the rest).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryRouterResult {
    Ok = 0,
    ErrInvalidHandle = 1,
    ErrInvalidParam = 2,
    ErrInitFailed = 3,
    ErrQueryFailed = 4,
    ErrDisaggEnforced = 5,
    ErrTimeout = 6,
    ErrBackpressure = 7,
}

use QueryRouterResult as R;

/// Data-parallel rank meaning "not set".
pub const UNSET_DP_RANK: u32 = u32::MAX;

/// A routing decision. Buffers are owned by the library until
/// free_routing_result.
#[cfg(any(routers_result = "9", not(epp_double_variant)))]
#[repr(C)]
pub struct CRoutingResult {
    pub is_disaggregated: bool,
    pub prefill_worker_id: u64,
    pub decode_worker_id: u64,
    pub prefill_dp_rank: u32,
    pub decode_dp_rank: u32,
    pub token_ids: *mut u32,
    pub token_count: usize,
    pub cache_namespace: *mut u8,
    pub cache_namespace_len: usize,
}

/// Dynamo's layout before data-parallel ranks (v1.0.x).
#[cfg(routers_result = "5")]
#[repr(C)]
pub struct CRoutingResult {
    pub is_disaggregated: bool,
    pub prefill_worker_id: u64,
    pub decode_worker_id: u64,
    pub token_ids: *mut u32,
    pub token_count: usize,
}

/// Dynamo's layout with data-parallel ranks, before cache namespaces.
#[cfg(routers_result = "7")]
#[repr(C)]
pub struct CRoutingResult {
    pub is_disaggregated: bool,
    pub prefill_worker_id: u64,
    pub decode_worker_id: u64,
    pub prefill_dp_rank: u32,
    pub decode_dp_rank: u32,
    pub token_ids: *mut u32,
    pub token_count: usize,
}

/// Opaque router pair. Never dereferenced by the double: its address keys
/// the registry, so a stale handle is detected instead of dereferenced.
pub struct RouterHandles {
    _id: u64,
}

pub type RouterHandlesPtr = *mut RouterHandles;

// No reservation call creates a booking without the reservation functions.
#[cfg_attr(reservation = "none", allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Booking {
    Pending,
    Cancelled,
    Active,
}

struct RequestEntry {
    prefill_complete: bool,
}

struct RoutersState {
    in_flight: AtomicI64,
    requests: Mutex<HashMap<String, RequestEntry>>,
    bookings: Mutex<HashMap<String, Booking>>,
}

fn handles() -> &'static Mutex<HashMap<usize, Arc<RoutersState>>> {
    static S: OnceLock<Mutex<HashMap<usize, Arc<RoutersState>>>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Live token buffers handed out in routing results (pointer -> length).
fn result_buffers() -> &'static Mutex<HashMap<usize, usize>> {
    static S: OnceLock<Mutex<HashMap<usize, usize>>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(HashMap::new()))
}

static NEXT_ID: AtomicI64 = AtomicI64::new(1);

/// Runtimes create_routers built; Dynamo never frees one.
static RUNTIMES: AtomicI64 = AtomicI64::new(0);

struct InFlight(Arc<RoutersState>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

fn enter(handle: RouterHandlesPtr) -> Result<InFlight, QueryRouterResult> {
    if handle.is_null() {
        return Err(R::ErrInvalidHandle);
    }
    let map = lock(handles());
    match map.get(&(handle as usize)) {
        Some(state) => {
            state.in_flight.fetch_add(1, Ordering::SeqCst);
            Ok(InFlight(state.clone()))
        }
        None => {
            common::record_violation();
            Err(R::ErrInvalidHandle)
        }
    }
}

macro_rules! try_code {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(code) => return code,
        }
    };
}

/// # Safety
/// String arguments are null or NUL-terminated; out_handle is null or writable.
#[no_mangle]
pub unsafe extern "C" fn create_routers(
    namespace: *const c_char,
    component: *const c_char,
    enforce_disagg: bool,
    out_handle: *mut RouterHandlesPtr,
) -> QueryRouterResult {
    let _call = try_code!(control::enter("create_routers"));
    if namespace.is_null() || out_handle.is_null() {
        return R::ErrInvalidParam;
    }
    match c_str(namespace) {
        Some(ns) if !ns.trim().is_empty() => {}
        _ => return R::ErrInvalidParam,
    }
    let _component = c_str(component).filter(|s| !s.is_empty()).unwrap_or("backend");
    // Deprecated and ignored by Dynamo at this generation's pin.
    let _ = enforce_disagg;
    RUNTIMES.fetch_add(1, Ordering::SeqCst);
    let id = NEXT_ID.fetch_add(1, Ordering::SeqCst) as u64;
    let handle = Box::into_raw(Box::new(RouterHandles { _id: id }));
    let state = RoutersState {
        in_flight: AtomicI64::new(0),
        requests: Mutex::new(HashMap::new()),
        bookings: Mutex::new(HashMap::new()),
    };
    lock(handles()).insert(handle as usize, Arc::new(state));
    *out_handle = handle;
    R::Ok
}

/// Pod names from EPP's pods JSON: entries are {"pod":{"podName":..}} or
/// {"podName":..}. Null or empty means "no filter"; so does JSON that is
/// not an array (Dynamo logs it), which the double counts as a violation.
unsafe fn pod_names(pods_json: *const c_char) -> Result<Vec<String>, QueryRouterResult> {
    let Some(text) = c_str(pods_json) else {
        if !pods_json.is_null() {
            common::record_violation();
        }
        return Ok(Vec::new());
    };
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let Some(items) = json::parse(text).ok().and_then(|v| v.as_array().map(|a| a.to_vec())) else {
        common::record_violation();
        return Ok(Vec::new());
    };
    Ok(items
        .iter()
        .filter_map(|p| {
            p.get("pod")
                .and_then(|q| q.get("podName"))
                .or_else(|| p.get("podName"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .collect())
}

/// Chooses a worker for role ("prefill" or "decode").
fn choose(role: &str, prompt: &str, pods: &[String]) -> u64 {
    let mut key = role.as_bytes().to_vec();
    key.push(b':');
    key.extend_from_slice(prompt.as_bytes());
    let h = common::fnv1a64(&key);
    if pods.is_empty() {
        h % common::worker_count()
    } else {
        common::fnv1a64(pods[(h % pods.len() as u64) as usize].as_bytes())
    }
}

struct Routed {
    worker: u64,
    tokens: Vec<u32>,
    // Only the 9-field result carries it back.
    #[cfg_attr(not(any(routers_result = "9", not(epp_double_variant))), allow(dead_code))]
    cache_namespace: Option<String>,
}

unsafe fn route(role: &'static str, request_json: *const c_char, pods_json: *const c_char) -> Result<Routed, QueryRouterResult> {
    let (request, prompt) = c_str(request_json).and_then(common::parse_request).ok_or(R::ErrInvalidParam)?;
    let pods = pod_names(pods_json)?;
    common::query_delay();
    let picked = control::pick(role, &pods)?;
    Ok(Routed {
        worker: picked.unwrap_or_else(|| choose(role, &prompt, &pods)),
        tokens: common::tokens_for(&prompt),
        // The OpenAI "cache_salt" field stands in for the cache namespace.
        cache_namespace: request.get("cache_salt").and_then(Value::as_str).map(str::to_string),
    })
}

/// Fills out with a fresh result; buffers are registered so that
/// free_routing_result can prove each is freed exactly once.
unsafe fn write_result(out: *mut CRoutingResult, routed: &Routed, disagg: bool, prefill: Option<u64>, decode: u64) {
    let tokens = common::leak_slice(&routed.tokens);
    if !tokens.is_null() {
        lock(result_buffers()).insert(tokens as usize, routed.tokens.len());
    }
    #[cfg(any(routers_result = "9", not(epp_double_variant)))]
    {
        let ns = routed.cache_namespace.as_deref().unwrap_or("");
        let ns_ptr = common::leak_slice(ns.as_bytes());
        *out = CRoutingResult {
            is_disaggregated: disagg,
            prefill_worker_id: prefill.unwrap_or(0),
            decode_worker_id: decode,
            prefill_dp_rank: UNSET_DP_RANK,
            decode_dp_rank: UNSET_DP_RANK,
            token_ids: tokens,
            token_count: routed.tokens.len(),
            cache_namespace: ns_ptr,
            cache_namespace_len: ns.len(),
        };
    }
    #[cfg(routers_result = "7")]
    {
        *out = CRoutingResult {
            is_disaggregated: disagg,
            prefill_worker_id: prefill.unwrap_or(0),
            decode_worker_id: decode,
            prefill_dp_rank: UNSET_DP_RANK,
            decode_dp_rank: UNSET_DP_RANK,
            token_ids: tokens,
            token_count: routed.tokens.len(),
        };
    }
    #[cfg(routers_result = "5")]
    {
        *out = CRoutingResult {
            is_disaggregated: disagg,
            prefill_worker_id: prefill.unwrap_or(0),
            decode_worker_id: decode,
            token_ids: tokens,
            token_count: routed.tokens.len(),
        };
    }
}

/// # Safety
/// handle comes from create_routers; strings are null or NUL-terminated;
/// out_result is null or writable.
#[no_mangle]
pub unsafe extern "C" fn route_prefill_request(
    handle: RouterHandlesPtr,
    request_json: *const c_char,
    pods_json: *const c_char,
    out_result: *mut CRoutingResult,
) -> QueryRouterResult {
    let _call = try_code!(control::enter("route_prefill_request"));
    if request_json.is_null() || out_result.is_null() {
        return R::ErrInvalidParam;
    }
    let _g = try_code!(enter(handle));
    let routed = try_code!(route("prefill", request_json, pods_json));
    write_result(out_result, &routed, true, Some(routed.worker), 0);
    R::Ok
}

/// # Safety
/// As route_prefill_request.
#[no_mangle]
pub unsafe extern "C" fn route_decode_request(
    handle: RouterHandlesPtr,
    request_json: *const c_char,
    pods_json: *const c_char,
    is_disaggregated: bool,
    out_result: *mut CRoutingResult,
) -> QueryRouterResult {
    let _call = try_code!(control::enter("route_decode_request"));
    if request_json.is_null() || out_result.is_null() {
        return R::ErrInvalidParam;
    }
    let _g = try_code!(enter(handle));
    let routed = try_code!(route("decode", request_json, pods_json));
    write_result(out_result, &routed, is_disaggregated, None, routed.worker);
    R::Ok
}

/// # Safety
/// result is null or was filled by a route call.
#[no_mangle]
pub unsafe extern "C" fn free_routing_result(result: *mut CRoutingResult) {
    let _call = control::observe("free_routing_result");
    if result.is_null() {
        return;
    }
    let res = &mut *result;
    if !res.token_ids.is_null() {
        match lock(result_buffers()).remove(&(res.token_ids as usize)) {
            Some(len) if len == res.token_count => common::free_slice(res.token_ids, len),
            _ => {
                common::record_violation();
                return;
            }
        }
    }
    // Cleared like Dynamo does, so freeing the same struct twice is harmless.
    res.token_ids = std::ptr::null_mut();
    res.token_count = 0;
    #[cfg(any(routers_result = "9", not(epp_double_variant)))]
    {
        common::free_slice(res.cache_namespace, res.cache_namespace_len);
        res.cache_namespace = std::ptr::null_mut();
        res.cache_namespace_len = 0;
    }
}

unsafe fn register_request(handle: RouterHandlesPtr, request_id: *const c_char, token_ids: *const u32, token_count: usize) -> QueryRouterResult {
    if request_id.is_null() || (token_ids.is_null() && token_count > 0) {
        return R::ErrInvalidParam;
    }
    let g = try_code!(enter(handle));
    let Some(id) = c_str(request_id).filter(|s| !s.is_empty()) else {
        return R::ErrInvalidParam;
    };
    let mut requests = lock(&g.0.requests);
    if requests.contains_key(id) {
        // Dynamo logs DuplicateRequest, keeps the first and returns Ok.
        common::record_ignored_call();
        return R::Ok;
    }
    requests.insert(id.to_string(), RequestEntry { prefill_complete: false });
    R::Ok
}

/// # Safety
/// handle comes from create_routers; request_id is NUL-terminated;
/// token_ids points at token_count values.
#[no_mangle]
pub unsafe extern "C" fn add_request(
    handle: RouterHandlesPtr,
    request_id: *const c_char,
    token_ids: *const u32,
    token_count: usize,
    worker_id: u64,
    dp_rank: u32,
) -> QueryRouterResult {
    let _call = try_code!(control::enter("add_request"));
    let _ = (worker_id, dp_rank);
    register_request(handle, request_id, token_ids, token_count)
}

/// # Safety
/// As add_request; cache_namespace is null or points at cache_namespace_len bytes.
#[cfg(any(routers_add = "8", not(epp_double_variant)))]
#[no_mangle]
pub unsafe extern "C" fn add_request_with_cache_namespace(
    handle: RouterHandlesPtr,
    request_id: *const c_char,
    token_ids: *const u32,
    token_count: usize,
    worker_id: u64,
    dp_rank: u32,
    cache_namespace: *const u8,
    cache_namespace_len: usize,
) -> QueryRouterResult {
    let _call = try_code!(control::enter("add_request_with_cache_namespace"));
    let _ = (worker_id, dp_rank);
    if cache_namespace.is_null() && cache_namespace_len > 0 {
        return R::ErrInvalidParam;
    }
    register_request(handle, request_id, token_ids, token_count)
}

unsafe fn with_id<F>(handle: RouterHandlesPtr, id: *const c_char, f: F) -> QueryRouterResult
where
    F: FnOnce(&RoutersState, &str) -> QueryRouterResult,
{
    if id.is_null() {
        return R::ErrInvalidParam;
    }
    let g = try_code!(enter(handle));
    match c_str(id).filter(|s| !s.is_empty()) {
        Some(id) => f(&g.0, id),
        None => R::ErrInvalidParam,
    }
}

/// Marks a request's prefill done. In the two-call reservation forms it
/// also releases a booking of the same id (the prefill load ends).
///
/// # Safety
/// handle comes from create_routers; request_id is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn mark_prefill_complete(handle: RouterHandlesPtr, request_id: *const c_char) -> QueryRouterResult {
    let _call = try_code!(control::enter("mark_prefill_complete"));
    with_id(handle, request_id, |s, id| {
        let released = releases_on_mark() && lock(&s.bookings).remove(id).is_some();
        match lock(&s.requests).get_mut(id) {
            Some(entry) => {
                entry.prefill_complete = true;
                R::Ok
            }
            None => {
                // Dynamo logs RequestNotFound and returns Ok.
                if !released {
                    common::record_ignored_call();
                }
                R::Ok
            }
        }
    })
}

/// Whether mark_prefill_complete releases a booking: only where no release
/// call exists.
fn releases_on_mark() -> bool {
    cfg!(any(reservation = "2", reservation = "timeout"))
}

/// Frees a request's decode bookkeeping, and any booking under the same id
/// (a booking id is the request id the decode side registers; bookings
/// exist only with the prefill reservation calls). An unknown id is Ok,
/// as in Dynamo (RequestNotFound is only logged).
///
/// # Safety
/// handle comes from create_routers; request_id is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn free_request(handle: RouterHandlesPtr, request_id: *const c_char) -> QueryRouterResult {
    let _call = try_code!(control::enter("free_request"));
    with_id(handle, request_id, |s, id| {
        let had_request = lock(&s.requests).remove(id).is_some();
        let had_booking = lock(&s.bookings).remove(id).is_some();
        if !had_request && !had_booking {
            common::record_ignored_call();
        }
        R::Ok
    })
}

/// # Safety
/// handle comes from create_routers and is destroyed once with no call in
/// flight; the double checks both.
#[no_mangle]
pub unsafe extern "C" fn destroy(handle: RouterHandlesPtr) {
    let _call = control::observe("destroy");
    if handle.is_null() {
        return;
    }
    let mut map = lock(handles());
    let Some(state) = map.get(&(handle as usize)) else {
        common::record_violation();
        return;
    };
    if state.in_flight.load(Ordering::SeqCst) > 0 {
        common::record_violation();
        return;
    }
    control::note_destroy(lock(&state.requests).len() as i64, lock(&state.bookings).len() as i64);
    map.remove(&(handle as usize));
    drop(map);
    drop(Box::from_raw(handle));
}

/// Opens a booking in the Pending state. Invented name (see README.md).
///
/// # Safety
/// handle comes from create_routers; booking_id is NUL-terminated.
#[cfg(any(reservation = "4", not(epp_double_variant)))]
#[no_mangle]
pub unsafe extern "C" fn begin_prefill_reservation(handle: RouterHandlesPtr, booking_id: *const c_char) -> QueryRouterResult {
    let _call = try_code!(control::enter("begin_prefill_reservation"));
    with_id(handle, booking_id, |s, id| {
        let mut b = lock(&s.bookings);
        if b.contains_key(id) {
            return R::ErrInvalidParam;
        }
        b.insert(id.to_string(), Booking::Pending);
        R::Ok
    })
}

/// Routes prefill for a Pending booking and makes it Active. Name derived
/// from the Go wrapper CallRoutePrefillRequestWithReservation.
///
/// # Safety
/// As route_prefill_request; booking_id is NUL-terminated.
#[cfg(any(reservation = "4", not(epp_double_variant)))]
#[no_mangle]
pub unsafe extern "C" fn route_prefill_request_with_reservation(
    handle: RouterHandlesPtr,
    booking_id: *const c_char,
    request_json: *const c_char,
    pods_json: *const c_char,
    out_result: *mut CRoutingResult,
) -> QueryRouterResult {
    let _call = try_code!(control::enter("route_prefill_request_with_reservation"));
    if booking_id.is_null() || request_json.is_null() || out_result.is_null() {
        return R::ErrInvalidParam;
    }
    let g = try_code!(enter(handle));
    let Some(id) = c_str(booking_id) else {
        return R::ErrInvalidParam;
    };
    match lock(&g.0.bookings).get(id) {
        Some(Booking::Pending) => {}
        Some(_) => return R::ErrQueryFailed,
        None => return R::ErrInvalidParam,
    }
    let routed = try_code!(route("prefill", request_json, pods_json));
    // Re-check: a cancel may have landed while routing ran.
    let mut bookings = lock(&g.0.bookings);
    match bookings.get_mut(id) {
        Some(state) if *state == Booking::Pending => *state = Booking::Active,
        _ => return R::ErrTimeout,
    }
    drop(bookings);
    write_result(out_result, &routed, true, Some(routed.worker), 0);
    R::Ok
}

/// Cancels a Pending booking; an Active one stays until released. An
/// unknown id is Ok and changes nothing: in the two-call forms a cancel
/// that arrives before the route call does not stop it, so a caller that
/// gave up must release the late result.
///
/// # Safety
/// handle comes from create_routers; booking_id is NUL-terminated.
#[cfg(not(reservation = "none"))]
#[no_mangle]
pub unsafe extern "C" fn cancel_prefill_reservation(handle: RouterHandlesPtr, booking_id: *const c_char) -> QueryRouterResult {
    let _call = try_code!(control::enter("cancel_prefill_reservation"));
    with_id(handle, booking_id, |s, id| {
        if let Some(state) = lock(&s.bookings).get_mut(id) {
            if *state == Booking::Pending {
                *state = Booking::Cancelled;
            }
        }
        R::Ok
    })
}

/// The two-call forms: the route call opens the booking itself (Pending
/// while routing, then Active); an id already booked is ErrInvalidParam; a
/// cancel while routing is ErrTimeout and drops the booking. timeout_ms (0: none) bounds the call: routing that
/// takes longer is ErrTimeout and drops the booking too.
#[cfg(any(reservation = "2", reservation = "timeout"))]
unsafe fn reserve_in_one_call(
    handle: RouterHandlesPtr,
    booking_id: *const c_char,
    request_json: *const c_char,
    pods_json: *const c_char,
    out_result: *mut CRoutingResult,
    timeout_ms: u64,
) -> QueryRouterResult {
    if booking_id.is_null() || request_json.is_null() || out_result.is_null() {
        return R::ErrInvalidParam;
    }
    let g = try_code!(enter(handle));
    let Some(id) = c_str(booking_id).filter(|s| !s.is_empty()) else {
        return R::ErrInvalidParam;
    };
    match lock(&g.0.bookings).entry(id.to_string()) {
        std::collections::hash_map::Entry::Occupied(_) => return R::ErrInvalidParam,
        std::collections::hash_map::Entry::Vacant(e) => {
            e.insert(Booking::Pending);
        }
    }
    let started = std::time::Instant::now();
    let routed = match route("prefill", request_json, pods_json) {
        Ok(r) => r,
        Err(code) => {
            lock(&g.0.bookings).remove(id);
            return code;
        }
    };
    let mut bookings = lock(&g.0.bookings);
    let timed_out = timeout_ms > 0 && started.elapsed() > std::time::Duration::from_millis(timeout_ms);
    match bookings.get_mut(id) {
        Some(state) if *state == Booking::Pending && !timed_out => *state = Booking::Active,
        _ => {
            bookings.remove(id);
            return R::ErrTimeout;
        }
    }
    drop(bookings);
    write_result(out_result, &routed, true, Some(routed.worker), 0);
    R::Ok
}

/// Routes prefill and holds the booking until mark_prefill_complete or
/// free_request (the two-call form).
///
/// # Safety
/// As route_prefill_request; booking_id is NUL-terminated.
#[cfg(reservation = "2")]
#[no_mangle]
pub unsafe extern "C" fn route_prefill_request_with_reservation(
    handle: RouterHandlesPtr,
    booking_id: *const c_char,
    request_json: *const c_char,
    pods_json: *const c_char,
    out_result: *mut CRoutingResult,
) -> QueryRouterResult {
    reserve_in_one_call(handle, booking_id, request_json, pods_json, out_result, 0)
}

/// As the two-call form, bounded by timeout_ms.
///
/// # Safety
/// As route_prefill_request; booking_id is NUL-terminated.
#[cfg(reservation = "timeout")]
#[no_mangle]
pub unsafe extern "C" fn route_prefill_request_with_reservation(
    handle: RouterHandlesPtr,
    booking_id: *const c_char,
    request_json: *const c_char,
    pods_json: *const c_char,
    out_result: *mut CRoutingResult,
    timeout_ms: u64,
) -> QueryRouterResult {
    reserve_in_one_call(handle, booking_id, request_json, pods_json, out_result, timeout_ms)
}

/// Drops a booking in any state; idempotent.
///
/// # Safety
/// handle comes from create_routers; booking_id is NUL-terminated.
#[cfg(any(reservation = "4", not(epp_double_variant)))]
#[no_mangle]
pub unsafe extern "C" fn release_prefill_reservation(handle: RouterHandlesPtr, booking_id: *const c_char) -> QueryRouterResult {
    let _call = try_code!(control::enter("release_prefill_reservation"));
    with_id(handle, booking_id, |s, id| {
        lock(&s.bookings).remove(id);
        R::Ok
    })
}

/// Double-only hook: bookings held by a handle (-1 for a dead handle).
#[no_mangle]
pub extern "C" fn dynamo_double_outstanding_bookings(handle: RouterHandlesPtr) -> i64 {
    match lock(handles()).get(&(handle as usize)) {
        Some(s) => lock(&s.bookings).len() as i64,
        None => -1,
    }
}

/// Double-only hook: requests registered on a handle and not freed (-1 for
/// a dead handle).
#[no_mangle]
pub extern "C" fn dynamo_double_outstanding_requests(handle: RouterHandlesPtr) -> i64 {
    match lock(handles()).get(&(handle as usize)) {
        Some(s) => lock(&s.requests).len() as i64,
        None => -1,
    }
}

/// Double-only hook: runtimes create_routers built (never freed, as in Dynamo).
#[no_mangle]
pub extern "C" fn dynamo_double_router_runtimes() -> i64 {
    RUNTIMES.load(Ordering::SeqCst)
}

/// Double-only hook: routing results whose token buffers are not freed.
#[no_mangle]
pub extern "C" fn dynamo_double_outstanding_routing_results() -> i64 {
    lock(result_buffers()).len() as i64
}

/// The routers' bookkeeping as JSON object members, for the state file
/// (control.rs): live handles, outstanding requests (with their prefill
/// mark), bookings (with their state) and routing results, runtimes built.
pub(crate) fn state_json() -> String {
    let quote = |s: &str| Value::Str(s.to_string()).to_json();
    let map = lock(handles());
    let (mut requests, mut bookings) = (Vec::new(), Vec::new());
    for state in map.values() {
        for (id, r) in lock(&state.requests).iter() {
            requests.push(format!("{}:{{\"prefill_complete\":{}}}", quote(id), r.prefill_complete));
        }
        for (id, b) in lock(&state.bookings).iter() {
            bookings.push(format!("{}:{}", quote(id), quote(&format!("{b:?}"))));
        }
    }
    let live = map.len();
    drop(map);
    requests.sort();
    bookings.sort();
    format!(
        "\"live_handles\":{live},\"outstanding_requests\":{},\"outstanding_bookings\":{},\"outstanding_routing_results\":{},\"runtimes\":{},\"requests\":{{{}}},\"bookings\":{{{}}}",
        requests.len(),
        bookings.len(),
        dynamo_double_outstanding_routing_results(),
        dynamo_double_router_runtimes(),
        requests.join(","),
        bookings.join(",")
    )
}
