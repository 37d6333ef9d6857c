//! The "pipeline" generation of the C API (Dynamo v0.7.0): init/shutdown
//! plus a worker-selection pipeline that picks a worker, tokenizes and
//! annotates a request. Signatures follow Dynamo's lib/bindings/c/src/lib.rs
//! at tag v0.7.0 (names, order and types); behaviour is a deterministic
//! stand-in.
//!
//! Handles and results are tracked in registries, so misuse (a destroyed
//! pipeline, a double free) becomes an error code plus a counted violation
//! instead of undefined behaviour: tests assert the counters stay at zero.
//!
//! As strict as Dynamo v0.7.0 where the product depends on it:
//! - dynamo_llm_init runs once per process. Dynamo's init calls
//!   tracing::subscriber::set_global_default(..).expect(..), which panics
//!   on a second call, and a panic leaving an extern "C" fn aborts the
//!   process; the double aborts too (also after dynamo_llm_shutdown, which
//!   only shuts the runtime down).
//! - After dynamo_llm_shutdown the runtime is gone: create and query fail
//!   and count a violation.
//! - Queries on one pipeline must not overlap: Dynamo's safety contract
//!   for dynamo_query_worker_selection_and_annotate says "do not call this
//!   function concurrently on the same pipeline pointer from multiple
//!   threads". A second query entering while one runs counts a violation.

use std::collections::{HashMap, HashSet};
use std::os::raw::c_char;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::common::{self, c_str, lock};
use crate::control;
use crate::json::Value;

/// Runs the control's hook for an exported call (control.rs): counts it and
/// writes the state file when the call ends; an injected failure returns
/// ERR at once.
macro_rules! hook {
    ($function:expr) => {
        match control::enter_pipeline($function) {
            Ok(call) => call,
            Err(()) => return DynamoLlmResult::ERR,
        }
    };
}

// Dynamo v0.8.0's signatures of the same symbols (see pipeline08.rs),
// included rather than declared as a module file so that cbindgen, which
// writes the v0.7.0 header, does not read them.
#[cfg(feature = "pipeline08")]
pub mod v08 {
    include!("pipeline08.rs");
}

/// Result of every pipeline-generation call. Dynamo's enum has OK and ERR
/// only; the double adds more specific codes (2 and up) so tests can tell
/// failures apart. A caller must treat any non-zero value as failure.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DynamoLlmResult {
    OK = 0,
    ERR = 1,
    /// A call that needs dynamo_llm_init came first (double only).
    ERR_NOT_INITIALIZED = 2,
    /// A required pointer argument was null (double only).
    ERR_NULL_POINTER = 3,
    /// The model is not served (double only).
    ERR_UNKNOWN_MODEL = 4,
    /// The request JSON is not an object with messages or a prompt (double only).
    ERR_BAD_REQUEST = 5,
    /// The pipeline handle is not live: destroyed or never created (double only).
    ERR_INVALID_HANDLE = 6,
    /// Destroy was called while a call on the pipeline was in flight; with
    /// feature pipeline08 also any call overlapping another on one pipeline
    /// (double only).
    ERR_BUSY = 7,
    /// A pointer given to free did not come from a live result (double only).
    ERR_UNKNOWN_POINTER = 8,
}

use DynamoLlmResult::*;

/// Opaque pipeline handle. The double never dereferences it: the address
/// keys the registry, so a stale handle is detected, not dereferenced.
pub struct WorkerSelectionPipeline {
    _id: u64,
}

struct PipelineState {
    model: String,
    workers: u64,
    in_flight: AtomicI64,
    /// Queries running on this pipeline (they must not overlap).
    querying: AtomicI64,
}

/// The process-wide runtime, as Dynamo's WK/DRT once-cells hold it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Runtime {
    Uninitialized,
    Live { kv_block_size: u32 },
    ShutDown,
}

fn init_state() -> &'static Mutex<Runtime> {
    static S: OnceLock<Mutex<Runtime>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(Runtime::Uninitialized))
}

/// Whether create and query may run: Live, or a counted violation.
fn runtime_live() -> Result<(), DynamoLlmResult> {
    match *lock(init_state()) {
        Runtime::Live { .. } => Ok(()),
        Runtime::Uninitialized => Err(ERR_NOT_INITIALIZED),
        Runtime::ShutDown => {
            common::record_violation();
            Err(ERR)
        }
    }
}

fn pipelines() -> &'static Mutex<HashMap<usize, Arc<PipelineState>>> {
    static S: OnceLock<Mutex<HashMap<usize, Arc<PipelineState>>>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Live query results keyed by the annotated JSON pointer (never null on
/// success), holding the token pointer and count that must come back with it.
fn results() -> &'static Mutex<HashMap<usize, (usize, usize)>> {
    static S: OnceLock<Mutex<HashMap<usize, (usize, usize)>>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Annotated-JSON pointers already freed, to tell a double free from a
/// foreign pointer in the violation log. Addresses may be reused by the
/// allocator, so an entry is dropped when its address is handed out again.
fn freed() -> &'static Mutex<HashSet<usize>> {
    static S: OnceLock<Mutex<HashSet<usize>>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(HashSet::new()))
}

static NEXT_ID: AtomicI64 = AtomicI64::new(1);

/// # Safety
/// namespace_c_str and component_c_str are null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn dynamo_llm_init(
    namespace_c_str: *const c_char,
    component_c_str: *const c_char,
    kv_block_size: u32,
) -> DynamoLlmResult {
    let namespace = match c_str(namespace_c_str) {
        Some(s) => s,
        None => return ERR_NULL_POINTER,
    };
    // Dynamo defaults a null or empty component to "backend"; so does the double.
    let _component = c_str(component_c_str).filter(|s| !s.trim().is_empty()).unwrap_or("backend");
    let mut state = lock(init_state());
    if *state != Runtime::Uninitialized {
        eprintln!(
            "capi-double: dynamo_llm_init called a second time in this process; \
             Dynamo's init panics there (set_global_default(..).expect) and the process aborts"
        );
        std::process::abort();
    }
    if namespace.trim().is_empty() || kv_block_size == 0 {
        return ERR;
    }
    *state = Runtime::Live { kv_block_size };
    OK
}

#[no_mangle]
pub extern "C" fn dynamo_llm_shutdown() -> DynamoLlmResult {
    let mut state = lock(init_state());
    match *state {
        Runtime::Live { .. } => {
            *state = Runtime::ShutDown;
            OK
        }
        // Dynamo: "Runtime not initialized" -> ERR when WK is unset; after a
        // shutdown WK is still set and shutting down again is harmless.
        Runtime::ShutDown => OK,
        Runtime::Uninitialized => ERR_NOT_INITIALIZED,
    }
}

/// # Safety
/// String arguments are null or NUL-terminated; pipeline_out is null or
/// writable.
// Under pipeline08 the v0.8.0 wrapper owns the name; export_name wins over
// no_mangle (which cbindgen reads for the v0.7.0 header).
#[allow(unused_attributes)]
#[no_mangle]
#[cfg_attr(feature = "pipeline08", export_name = "dynamo_double_v07_create_worker_selection_pipeline")]
pub unsafe extern "C" fn dynamo_create_worker_selection_pipeline(
    namespace_c_str: *const c_char,
    component_c_str: *const c_char,
    model_name_c_str: *const c_char,
    use_kv_routing: bool,
    busy_threshold: f64,
    overlap_score_weight: f64,
    router_temperature: f64,
    use_kv_events: bool,
    router_replica_sync: bool,
    pipeline_out: *mut *mut WorkerSelectionPipeline,
) -> DynamoLlmResult {
    // Under pipeline08 the v0.8.0 wrapper is the exported call and hooks it.
    #[cfg(not(feature = "pipeline08"))]
    let _call = hook!("dynamo_create_worker_selection_pipeline");
    let _ = (use_kv_routing, use_kv_events, router_replica_sync);
    if pipeline_out.is_null() || namespace_c_str.is_null() || model_name_c_str.is_null() {
        return ERR_NULL_POINTER;
    }
    if let Err(code) = runtime_live() {
        return code;
    }
    let (Some(_namespace), Some(model)) = (c_str(namespace_c_str), c_str(model_name_c_str)) else {
        return ERR;
    };
    let _component = c_str(component_c_str).unwrap_or("backend");
    if !busy_threshold.is_finite() || !overlap_score_weight.is_finite() || !router_temperature.is_finite() {
        return ERR;
    }
    if !common::model_known(model) {
        return ERR_UNKNOWN_MODEL;
    }
    let id = NEXT_ID.fetch_add(1, Ordering::SeqCst) as u64;
    let handle = Box::into_raw(Box::new(WorkerSelectionPipeline { _id: id }));
    let state = PipelineState {
        model: model.to_string(),
        workers: common::worker_count(),
        in_flight: AtomicI64::new(0),
        querying: AtomicI64::new(0),
    };
    lock(pipelines()).insert(handle as usize, Arc::new(state));
    *pipeline_out = handle;
    OK
}

/// Marks one call in flight on a pipeline for as long as it lives.
struct InFlight(Arc<PipelineState>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One query running on a pipeline; a second one at the same time is the
/// concurrent use Dynamo's contract forbids.
struct Querying<'a>(&'a PipelineState);

impl<'a> Querying<'a> {
    fn enter(state: &'a PipelineState) -> Self {
        if state.querying.fetch_add(1, Ordering::SeqCst) > 0 {
            common::record_violation();
        }
        Querying(state)
    }
}

impl Drop for Querying<'_> {
    fn drop(&mut self) {
        self.0.querying.fetch_sub(1, Ordering::SeqCst);
    }
}

fn enter(pipeline: *mut WorkerSelectionPipeline) -> Option<InFlight> {
    let map = lock(pipelines());
    let state = map.get(&(pipeline as usize))?.clone();
    state.in_flight.fetch_add(1, Ordering::SeqCst);
    Some(InFlight(state))
}

/// # Safety
/// request_json_c_str is null or NUL-terminated; out pointers are null or
/// writable.
// Under pipeline08 the v0.8.0 wrapper owns the name; export_name wins over
// no_mangle (which cbindgen reads for the v0.7.0 header).
#[allow(unused_attributes)]
#[no_mangle]
#[cfg_attr(feature = "pipeline08", export_name = "dynamo_double_v07_query_worker_selection_and_annotate")]
pub unsafe extern "C" fn dynamo_query_worker_selection_and_annotate(
    pipeline: *mut WorkerSelectionPipeline,
    request_json_c_str: *const c_char,
    worker_instance_id_out: *mut i64,
    token_ids_out: *mut *mut u32,
    token_count_out: *mut usize,
    annotated_request_json_out: *mut *mut c_char,
) -> DynamoLlmResult {
    #[cfg(not(feature = "pipeline08"))]
    let _call = hook!("dynamo_query_worker_selection_and_annotate");
    if pipeline.is_null()
        || request_json_c_str.is_null()
        || worker_instance_id_out.is_null()
        || token_ids_out.is_null()
        || token_count_out.is_null()
        || annotated_request_json_out.is_null()
    {
        return ERR_NULL_POINTER;
    }
    let guard = match enter(pipeline) {
        Some(g) => g,
        None => {
            common::record_violation();
            return ERR_INVALID_HANDLE;
        }
    };
    if let Err(code) = runtime_live() {
        return code;
    }
    let state = &guard.0;
    let _query = Querying::enter(state);
    common::query_delay();
    let Some((mut request, prompt)) = c_str(request_json_c_str).and_then(common::parse_request) else {
        return ERR_BAD_REQUEST;
    };
    // A request naming another model than the pipeline serves is refused,
    // like a real frontend would.
    if let Some(m) = request.get("model").and_then(Value::as_str) {
        if m != state.model {
            return ERR_UNKNOWN_MODEL;
        }
    }
    // The test's control may name the worker, among this pipeline's.
    let worker = match control::pick_workers(state.workers) {
        Err(()) => return ERR,
        Ok((Some(decode), _)) => decode,
        Ok((None, _)) => (common::fnv1a64(prompt.as_bytes()) % state.workers) as i64,
    };
    let tokens = common::tokens_for(&prompt);

    let mut nvext = match request.get("nvext") {
        Some(v @ Value::Object(_)) => v.clone(),
        _ => Value::Object(Vec::new()),
    };
    nvext.set("backend_instance_id", Value::Number(worker.to_string()));
    nvext.set(
        "token_data",
        Value::Array(tokens.iter().map(|t| Value::Number(t.to_string())).collect()),
    );
    request.set("nvext", nvext);
    // Serialized JSON never holds a NUL byte: strings escape control bytes.
    let Ok(annotated) = std::ffi::CString::new(request.to_json()) else {
        return ERR;
    };

    let json_ptr = annotated.into_raw();
    let tokens_ptr = common::leak_slice(&tokens);
    lock(freed()).remove(&(json_ptr as usize));
    lock(results()).insert(json_ptr as usize, (tokens_ptr as usize, tokens.len()));
    *worker_instance_id_out = worker;
    *token_ids_out = tokens_ptr;
    *token_count_out = tokens.len();
    *annotated_request_json_out = json_ptr;
    OK
}

/// # Safety
/// The arguments come from one successful query and are freed once; the
/// double checks that and refuses anything else.
#[no_mangle]
pub unsafe extern "C" fn dynamo_free_worker_selection_result(
    token_ids: *mut u32,
    token_count: usize,
    annotated_request_json: *mut c_char,
) -> DynamoLlmResult {
    let _call = hook!("dynamo_free_worker_selection_result");
    if annotated_request_json.is_null() {
        // Dynamo treats null buffers as nothing to free.
        return if token_ids.is_null() { OK } else { ERR_NULL_POINTER };
    }
    let key = annotated_request_json as usize;
    let entry = lock(results()).remove(&key);
    match entry {
        Some((tok_ptr, tok_len)) if tok_ptr == token_ids as usize && tok_len == token_count => {
            common::free_slice(token_ids, token_count);
            drop(std::ffi::CString::from_raw(annotated_request_json));
            lock(freed()).insert(key);
            OK
        }
        Some(entry) => {
            // Mismatched token buffer: keep the result live, report misuse.
            lock(results()).insert(key, entry);
            common::record_violation();
            ERR_UNKNOWN_POINTER
        }
        None => {
            common::record_violation();
            ERR_UNKNOWN_POINTER
        }
    }
}

/// # Safety
/// pipeline comes from create and is destroyed once with no call in flight;
/// the double checks both and refuses otherwise.
#[no_mangle]
pub unsafe extern "C" fn dynamo_destroy_worker_selection_pipeline(
    pipeline: *mut WorkerSelectionPipeline,
) -> DynamoLlmResult {
    let _call = hook!("dynamo_destroy_worker_selection_pipeline");
    if pipeline.is_null() {
        return ERR_NULL_POINTER;
    }
    let mut map = lock(pipelines());
    let Some(state) = map.get(&(pipeline as usize)) else {
        common::record_violation();
        return ERR_INVALID_HANDLE;
    };
    #[cfg(feature = "pipeline08")]
    let v08_busy = v08::busy(pipeline);
    #[cfg(not(feature = "pipeline08"))]
    let v08_busy = false;
    if state.in_flight.load(Ordering::SeqCst) > 0 || v08_busy {
        // The real library would free memory a running query still uses.
        common::record_violation();
        return ERR_BUSY;
    }
    map.remove(&(pipeline as usize));
    drop(map);
    #[cfg(feature = "pipeline08")]
    control::note_destroy_pipeline(v08::registered(pipeline).len() as i64);
    #[cfg(not(feature = "pipeline08"))]
    control::note_destroy_pipeline(0);
    drop(Box::from_raw(pipeline));
    OK
}

/// What the pipeline generation holds, for the control's state file.
pub(crate) struct Held {
    /// Pipelines created and not destroyed.
    pub live: usize,
    /// Request ids registered and not freed, with their prefill mark.
    pub requests: Vec<(String, bool)>,
    /// Query results handed out and not freed.
    pub results: i64,
}

pub(crate) fn held() -> Held {
    let live: Vec<usize> = lock(pipelines()).keys().copied().collect();
    #[cfg(feature = "pipeline08")]
    let requests = live.iter().flat_map(|p| v08::registered(*p as *mut WorkerSelectionPipeline)).collect();
    #[cfg(not(feature = "pipeline08"))]
    let requests = Vec::new();
    Held { live: live.len(), requests, results: dynamo_double_outstanding_results() }
}

/// Double-only hook: query results handed out and not yet freed.
#[no_mangle]
pub extern "C" fn dynamo_double_outstanding_results() -> i64 {
    lock(results()).len() as i64
}

/// Double-only hook: pipelines created and not yet destroyed.
#[no_mangle]
pub extern "C" fn dynamo_double_live_pipelines() -> i64 {
    lock(pipelines()).len() as i64
}

/// Double-only hook: misuse seen so far (see common::record_violation).
#[no_mangle]
pub extern "C" fn dynamo_double_violations() -> i64 {
    common::violations()
}

/// Double-only hook: the kv_block_size the last successful dynamo_llm_init
/// received, 0 when not initialized. A caller declaring the wrong arity
/// (the 4-argument init of older Go code) shows up here as a wrong value.
#[no_mangle]
pub extern "C" fn dynamo_double_init_kv_block_size() -> u32 {
    match *lock(init_state()) {
        Runtime::Live { kv_block_size } => kv_block_size,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::{CStr, CString};

    #[test]
    fn full_cycle_frees_once() {
        unsafe {
            let ns = CString::new("ns").unwrap();
            let model = CString::new("m").unwrap();
            assert_eq!(dynamo_llm_init(ns.as_ptr(), std::ptr::null(), 16), OK);
            let mut p = std::ptr::null_mut();
            assert_eq!(
                dynamo_create_worker_selection_pipeline(
                    ns.as_ptr(), std::ptr::null(), model.as_ptr(), true, 0.9, 1.0, 0.0, true, false, &mut p,
                ),
                OK
            );
            let req = CString::new(r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#).unwrap();
            let (mut w, mut toks, mut n, mut js) = (0i64, std::ptr::null_mut(), 0usize, std::ptr::null_mut());
            assert_eq!(dynamo_query_worker_selection_and_annotate(p, req.as_ptr(), &mut w, &mut toks, &mut n, &mut js), OK);
            assert_eq!(n, 2);
            let text = CStr::from_ptr(js).to_str().unwrap().to_string();
            assert!(text.contains("\"nvext\":{\"backend_instance_id\":"), "{}", text);
            assert!(text.ends_with("\"token_data\":[105,106]}}"), "{}", text);
            let before = common::violations();
            assert_eq!(dynamo_free_worker_selection_result(toks, n, js), OK);
            assert_eq!(dynamo_free_worker_selection_result(toks, n, js), ERR_UNKNOWN_POINTER);
            assert_eq!(common::violations(), before + 1);
            assert_eq!(dynamo_destroy_worker_selection_pipeline(p), OK);
            assert_eq!(dynamo_destroy_worker_selection_pipeline(p), ERR_INVALID_HANDLE);
        }
    }
}
