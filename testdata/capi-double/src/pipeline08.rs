// The "pipeline" generation as Dynamo v0.8.0 exports it (feature
// `pipeline08`): `dynamo_create_worker_selection_pipeline` gains
// `enforce_disagg`, `dynamo_query_worker_selection_and_annotate` returns a
// decode and a prefill worker, and three bookkeeping calls appear. Checked
// against `lib/bindings/c/src/lib.rs` of ai-dynamo/dynamo at tag v0.8.0
// (115531a0c0bf58ff12df7ef7e69082d50fd4d707).
//
// A library holds one generation's symbols, so under this feature the
// v0.7.0 create and query of the parent module are not exported and the
// functions here wrap them.

use std::collections::HashMap;
use std::os::raw::c_char;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use super::{DynamoLlmResult, WorkerSelectionPipeline};
use crate::common::{self, c_str, lock};
use crate::control;
use DynamoLlmResult::*;

/// Per pipeline: whether disaggregation is enforced, the registered request
/// ids, and a flag held by the one call running on the pipeline. Dynamo
/// v0.8's library allows no overlap there: its query "must not" run
/// "concurrently on the same pipeline pointer", add_request "must not be
/// called concurrently on the same pipeline without synchronization", and
/// destroy must not run while any call is in flight. The double applies
/// that to every call taking the pipeline (query, the three bookkeeping
/// calls; destroy is refused by the parent module while any of them is in
/// flight): a call entering while another runs returns ERR_BUSY and counts
/// a violation, where the real library would race on the pipeline.
struct Bookkeeping {
    enforce_disagg: bool,
    /// Registered request ids, with whether their prefill was marked
    /// complete.
    requests: Mutex<HashMap<String, bool>>,
    busy: AtomicBool,
}

fn books() -> &'static Mutex<HashMap<usize, &'static Bookkeeping>> {
    static S: OnceLock<Mutex<HashMap<usize, &'static Bookkeeping>>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(HashMap::new()))
}

fn book(pipeline: *mut WorkerSelectionPipeline) -> Option<&'static Bookkeeping> {
    lock(books()).get(&(pipeline as usize)).copied()
}

#[no_mangle]
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
    let _call = hook!("dynamo_create_worker_selection_pipeline");
    let code = super::dynamo_create_worker_selection_pipeline(
        namespace_c_str, component_c_str, model_name_c_str, use_kv_routing, busy_threshold,
        overlap_score_weight, router_temperature, use_kv_events, router_replica_sync, pipeline_out,
    );
    if code == OK {
        // Leaked on purpose: a handle's bookkeeping outlives destroy so a
        // late call is reported as a misuse, never a use-after-free here.
        let b: &'static Bookkeeping = Box::leak(Box::new(Bookkeeping {
            enforce_disagg,
            requests: Mutex::new(HashMap::new()),
            busy: AtomicBool::new(false),
        }));
        lock(books()).insert(*pipeline_out as usize, b);
    }
    code
}

/// Decode worker as in v0.7.0; with enforce_disagg the prefill worker is the
/// next worker (mod DYNAMO_DOUBLE_WORKERS), else -1 as Dynamo returns when
/// the request is not disaggregated.
#[no_mangle]
pub unsafe extern "C" fn dynamo_query_worker_selection_and_annotate(
    pipeline: *mut WorkerSelectionPipeline,
    request_json_c_str: *const c_char,
    decode_worker_id_out: *mut i64,
    prefill_worker_id_out: *mut i64,
    token_ids_out: *mut *mut u32,
    token_count_out: *mut usize,
    annotated_request_json_out: *mut *mut c_char,
) -> DynamoLlmResult {
    let _call = hook!("dynamo_query_worker_selection_and_annotate");
    if prefill_worker_id_out.is_null() {
        return ERR_NULL_POINTER;
    }
    // A pipeline without bookkeeping is not live: the parent query reports it.
    let _exclusive = match book(pipeline).map(Exclusive::enter) {
        Some(Err(code)) => return code,
        Some(Ok(guard)) => Some(guard),
        None => None,
    };
    let code = super::dynamo_query_worker_selection_and_annotate(
        pipeline, request_json_c_str, decode_worker_id_out, token_ids_out, token_count_out,
        annotated_request_json_out,
    );
    if code != OK {
        return code;
    }
    // The parent query checked the control's picks; a prefill worker
    // programmed there wins over the deterministic one.
    let programmed = control::pick_workers(common::worker_count()).ok().and_then(|(_, prefill)| prefill);
    *prefill_worker_id_out = match (programmed, book(pipeline)) {
        (Some(p), _) => p,
        (None, Some(b)) if b.enforce_disagg => ((*decode_worker_id_out as u64 + 1) % common::worker_count()) as i64,
        _ => -1,
    };
    OK
}

/// The request ids registered on a pipeline and not freed, with their
/// prefill mark (for the control's state file).
pub(super) fn registered(pipeline: *mut WorkerSelectionPipeline) -> Vec<(String, bool)> {
    book(pipeline).map(|b| lock(&b.requests).iter().map(|(id, m)| (id.clone(), *m)).collect()).unwrap_or_default()
}

/// Whether a call holds the pipeline (destroy must not overlap it).
pub(super) fn busy(pipeline: *mut WorkerSelectionPipeline) -> bool {
    book(pipeline).is_some_and(|b| b.busy.load(Ordering::SeqCst))
}

/// Runs one bookkeeping call on a live pipeline, refusing (ERR_BUSY and a
/// recorded violation) when another call is in flight on it.
unsafe fn bookkeeping(
    pipeline: *mut WorkerSelectionPipeline,
    request_id_c_str: *const c_char,
    f: impl FnOnce(&mut HashMap<String, bool>, &str),
) -> DynamoLlmResult {
    if pipeline.is_null() || request_id_c_str.is_null() {
        return ERR_NULL_POINTER;
    }
    let Some(_guard) = super::enter(pipeline) else {
        common::record_violation();
        return ERR_INVALID_HANDLE;
    };
    let Some(b) = book(pipeline) else {
        common::record_violation();
        return ERR_INVALID_HANDLE;
    };
    let Some(id) = c_str(request_id_c_str) else {
        return ERR;
    };
    let _exclusive = match Exclusive::enter(b) {
        Ok(guard) => guard,
        Err(code) => return code,
    };
    common::query_delay();
    f(&mut lock(&b.requests), id);
    OK
}

/// The one call allowed on a pipeline at a time; a second one gets ERR_BUSY
/// and counts a violation. Released when dropped.
struct Exclusive(&'static Bookkeeping);

impl Exclusive {
    fn enter(b: &'static Bookkeeping) -> Result<Self, DynamoLlmResult> {
        if b.busy.swap(true, Ordering::SeqCst) {
            common::record_violation();
            return Err(ERR_BUSY);
        }
        Ok(Exclusive(b))
    }
}

impl Drop for Exclusive {
    fn drop(&mut self) {
        self.0.busy.store(false, Ordering::SeqCst);
    }
}

#[no_mangle]
pub unsafe extern "C" fn dynamo_router_add_request(
    pipeline: *mut WorkerSelectionPipeline,
    request_id_c_str: *const c_char,
    token_ids: *const u32,
    token_count: usize,
    worker_id: u64,
    dp_rank: u32,
) -> DynamoLlmResult {
    let _call = hook!("dynamo_router_add_request");
    let _ = (worker_id, dp_rank);
    if token_ids.is_null() && token_count > 0 {
        return ERR_NULL_POINTER;
    }
    bookkeeping(pipeline, request_id_c_str, |requests, id| {
        requests.entry(id.to_string()).or_insert(false);
    })
}

/// Like Dynamo's, an unknown id is not an error.
#[no_mangle]
pub unsafe extern "C" fn dynamo_router_mark_prefill_complete(
    pipeline: *mut WorkerSelectionPipeline,
    request_id_c_str: *const c_char,
) -> DynamoLlmResult {
    let _call = hook!("dynamo_router_mark_prefill_complete");
    bookkeeping(pipeline, request_id_c_str, |requests, id| {
        if let Some(marked) = requests.get_mut(id) {
            *marked = true;
        }
    })
}

/// Like Dynamo's, freeing an unknown id returns OK (the real library logs a
/// warning).
#[no_mangle]
pub unsafe extern "C" fn dynamo_router_free_request(
    pipeline: *mut WorkerSelectionPipeline,
    request_id_c_str: *const c_char,
) -> DynamoLlmResult {
    let _call = hook!("dynamo_router_free_request");
    bookkeeping(pipeline, request_id_c_str, |requests, id| {
        requests.remove(id);
    })
}

/// Test hook: request ids registered and not yet freed, over all pipelines.
#[no_mangle]
pub extern "C" fn dynamo_double_registered_requests() -> i64 {
    lock(books()).values().map(|b| lock(&b.requests).len() as i64).sum()
}
