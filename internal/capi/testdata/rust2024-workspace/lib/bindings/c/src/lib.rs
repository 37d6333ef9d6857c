//! FIXTURE (never shipped): the "pipeline" generation's C prototypes with
//! Dynamo v0.8.0's arities, exported with Rust 2024's unsafe attributes.
//! Bodies are trivial; only the signatures matter.

use std::os::raw::c_char;

#[repr(u32)]
pub enum DynamoLlmResult {
    OK = 0,
    ERR = 1,
}

/// Opaque to C.
pub struct WorkerSelectionPipeline {
    _worker: i64,
}

/// # Safety
/// Strings are null or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dynamo_llm_init(
    namespace_c_str: *const c_char,
    component_c_str: *const c_char,
    kv_block_size: u32,
) -> DynamoLlmResult {
    let _ = (namespace_c_str, component_c_str, kv_block_size);
    DynamoLlmResult::OK
}

#[unsafe(no_mangle)]
pub extern "C" fn dynamo_llm_shutdown() -> DynamoLlmResult {
    DynamoLlmResult::OK
}

/// # Safety
/// pipeline_out is writable.
#[unsafe(no_mangle)]
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
    enforce_disagg: bool,
    pipeline_out: *mut *mut WorkerSelectionPipeline,
) -> DynamoLlmResult {
    let _ = (namespace_c_str, component_c_str, model_name_c_str, use_kv_routing, busy_threshold);
    let _ = (overlap_score_weight, router_temperature, use_kv_events, router_replica_sync, enforce_disagg);
    let handle = Box::into_raw(Box::new(WorkerSelectionPipeline { _worker: dynamo_llm::pick_worker(0) }));
    unsafe { *pipeline_out = handle };
    DynamoLlmResult::OK
}

/// # Safety
/// Output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dynamo_query_worker_selection_and_annotate(
    pipeline: *mut WorkerSelectionPipeline,
    request_json_c_str: *const c_char,
    decode_worker_id_out: *mut i64,
    prefill_worker_id_out: *mut i64,
    token_ids_out: *mut *mut u32,
    token_count_out: *mut usize,
    annotated_request_json_out: *mut *mut c_char,
) -> DynamoLlmResult {
    let _ = (pipeline, request_json_c_str, decode_worker_id_out, prefill_worker_id_out);
    let _ = (token_ids_out, token_count_out, annotated_request_json_out);
    DynamoLlmResult::ERR
}

/// # Safety
/// Buffers come from a query.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dynamo_free_worker_selection_result(
    token_ids: *mut u32,
    token_count: usize,
    annotated_request_json: *mut c_char,
) -> DynamoLlmResult {
    let _ = (token_ids, token_count, annotated_request_json);
    DynamoLlmResult::OK
}

/// # Safety
/// pipeline comes from create.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dynamo_destroy_worker_selection_pipeline(
    pipeline: *mut WorkerSelectionPipeline,
) -> DynamoLlmResult {
    if !pipeline.is_null() {
        drop(unsafe { Box::from_raw(pipeline) });
    }
    DynamoLlmResult::OK
}

/// # Safety
/// token_ids holds token_count values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dynamo_router_add_request(
    pipeline: *mut WorkerSelectionPipeline,
    request_id_c_str: *const c_char,
    token_ids: *const u32,
    token_count: usize,
    worker_id: u64,
    dp_rank: u32,
) -> DynamoLlmResult {
    let _ = (pipeline, request_id_c_str, token_ids, token_count, worker_id, dp_rank);
    DynamoLlmResult::OK
}

/// # Safety
/// request_id_c_str is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dynamo_router_mark_prefill_complete(
    pipeline: *mut WorkerSelectionPipeline,
    request_id_c_str: *const c_char,
) -> DynamoLlmResult {
    let _ = (pipeline, request_id_c_str);
    DynamoLlmResult::OK
}

/// Exported under its C name through export_name, the other unsafe
/// attribute edition 2024 requires.
///
/// # Safety
/// request_id_c_str is NUL-terminated.
#[unsafe(export_name = "dynamo_router_free_request")]
pub unsafe extern "C" fn router_free_request(
    pipeline: *mut WorkerSelectionPipeline,
    request_id_c_str: *const c_char,
) -> DynamoLlmResult {
    let _ = (pipeline, request_id_c_str);
    DynamoLlmResult::OK
}
