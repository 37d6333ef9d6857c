//! Fixture C API crate: the "routers" generation's exported functions with
//! the signatures of Dynamo's lib/bindings/c/src/lib.rs at the v1.4.0
//! branch cut, and trivial bodies.

use std::os::raw::c_char;

#[repr(u32)]
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

pub struct RouterHandles {
    _workers: u64,
}

pub type RouterHandlesPtr = *mut RouterHandles;

fn route(request_json: *const c_char, out: *mut CRoutingResult, prefill: bool) -> QueryRouterResult {
    if request_json.is_null() || out.is_null() {
        return QueryRouterResult::ErrInvalidParam;
    }
    let request = unsafe { std::ffi::CStr::from_ptr(request_json) }.to_bytes();
    let worker = dynamo_llm::pick_worker(request);
    unsafe {
        *out = CRoutingResult {
            is_disaggregated: prefill,
            prefill_worker_id: if prefill { worker } else { 0 },
            decode_worker_id: if prefill { 0 } else { worker },
            prefill_dp_rank: u32::MAX,
            decode_dp_rank: u32::MAX,
            token_ids: std::ptr::null_mut(),
            token_count: 0,
            cache_namespace: std::ptr::null_mut(),
            cache_namespace_len: 0,
        };
    }
    QueryRouterResult::Ok
}

/// # Safety
/// out_handle is writable.
#[no_mangle]
pub unsafe extern "C" fn create_routers(
    namespace: *const c_char,
    component: *const c_char,
    enforce_disagg: bool,
    out_handle: *mut RouterHandlesPtr,
) -> QueryRouterResult {
    let _ = (component, enforce_disagg);
    if namespace.is_null() || out_handle.is_null() {
        return QueryRouterResult::ErrInvalidParam;
    }
    *out_handle = Box::into_raw(Box::new(RouterHandles { _workers: 4 }));
    QueryRouterResult::Ok
}

/// # Safety
/// Pointers are valid or null.
#[no_mangle]
pub unsafe extern "C" fn add_request(
    handle: RouterHandlesPtr,
    request_id: *const c_char,
    token_ids: *const u32,
    token_count: usize,
    worker_id: u64,
    dp_rank: u32,
) -> QueryRouterResult {
    add_request_with_cache_namespace(handle, request_id, token_ids, token_count, worker_id, dp_rank, std::ptr::null(), 0)
}

/// # Safety
/// Pointers are valid or null.
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
    let _ = (token_ids, token_count, worker_id, dp_rank, cache_namespace, cache_namespace_len);
    if handle.is_null() || request_id.is_null() {
        return QueryRouterResult::ErrInvalidParam;
    }
    QueryRouterResult::Ok
}

/// # Safety
/// Pointers are valid or null.
#[no_mangle]
pub unsafe extern "C" fn mark_prefill_complete(handle: RouterHandlesPtr, request_id: *const c_char) -> QueryRouterResult {
    if handle.is_null() || request_id.is_null() {
        return QueryRouterResult::ErrInvalidParam;
    }
    QueryRouterResult::Ok
}

/// # Safety
/// Pointers are valid or null.
#[no_mangle]
pub unsafe extern "C" fn free_request(handle: RouterHandlesPtr, request_id: *const c_char) -> QueryRouterResult {
    if handle.is_null() || request_id.is_null() {
        return QueryRouterResult::ErrInvalidParam;
    }
    QueryRouterResult::Ok
}

/// # Safety
/// handle comes from create_routers, once.
#[no_mangle]
pub unsafe extern "C" fn destroy(handle: RouterHandlesPtr) {
    if !handle.is_null() {
        drop(Box::from_raw(handle));
    }
}

/// # Safety
/// result is null or was filled by a route call.
#[no_mangle]
pub unsafe extern "C" fn free_routing_result(result: *mut CRoutingResult) {
    let _ = result;
}

/// # Safety
/// Pointers are valid or null.
#[no_mangle]
pub unsafe extern "C" fn route_prefill_request(
    handle: RouterHandlesPtr,
    request_json: *const c_char,
    pods_json: *const c_char,
    out_result: *mut CRoutingResult,
) -> QueryRouterResult {
    let _ = pods_json;
    if handle.is_null() {
        return QueryRouterResult::ErrInvalidParam;
    }
    route(request_json, out_result, true)
}

/// # Safety
/// Pointers are valid or null.
#[no_mangle]
pub unsafe extern "C" fn route_decode_request(
    handle: RouterHandlesPtr,
    request_json: *const c_char,
    pods_json: *const c_char,
    is_disaggregated: bool,
    out_result: *mut CRoutingResult,
) -> QueryRouterResult {
    let _ = (pods_json, is_disaggregated);
    if handle.is_null() {
        return QueryRouterResult::ErrInvalidParam;
    }
    route(request_json, out_result, false)
}
