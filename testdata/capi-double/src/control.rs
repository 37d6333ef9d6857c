//! Out-of-process control of the routers generation, for tests that run the
//! EPP as a separate process (the deployed-EPP test) and so cannot call the
//! `dynamo_double_*` hooks. Two environment variables, both optional:
//!
//! - `EPP_BUILD_DOUBLE_CONTROL=<file>`: JSON read before every routing call,
//!   so a test may rewrite it between requests. A missing file means "not
//!   programmed" (the deterministic routing of routers.rs). Keys:
//!   - `"decode_pod"`, `"prefill_pod"`: the pod (its `podName` in the pods
//!     JSON) the router picks for that role. As the real router never picks
//!     outside the candidates it is given, a pod that is not among them
//!     fails the call with `ErrQueryFailed` and counts a control miss.
//!   - `"errors"`: `{"<function>": <QueryRouterResult code>}`; that exported
//!     function returns the code without doing anything.
//!
//!   - `"decode_worker"`, `"prefill_worker"` (pipeline generation): the
//!     worker id the pipeline's query returns for that role (`-1` prefill:
//!     not disaggregated). The pipeline picks among its workers (ids `0` to
//!     `DYNAMO_DOUBLE_WORKERS - 1`); a programmed id outside them, or a
//!     prefill worker equal to the decode worker, fails the query with
//!     `ERR` and counts a control miss.
//!
//!   A file that does not parse counts a violation and is ignored. An
//!   injected error makes a pipeline-generation function return `ERR`, the
//!   only failure code Dynamo's pipeline library has.
//! - `EPP_BUILD_DOUBLE_STATE=<file>`: after every exported call of the
//!   routers generation, and of the pipeline generation's create, query,
//!   free, destroy and bookkeeping calls, the double writes its bookkeeping there as JSON,
//!   atomically (a temporary file renamed over it): calls by function,
//!   live handles, outstanding requests, bookings and routing results,
//!   what each destroyed handle still held, violations and ignored calls;
//!   for the pipeline generation, under keys of its own, live pipelines,
//!   registered requests (with their prefill mark), outstanding query
//!   results and what each destroyed pipeline still held.
//!
//! Neither makes the double more lenient: the control only narrows the
//! choice the real router could make, or fails a call the real library can
//! fail with that code.

use std::collections::BTreeMap;
use std::fs;
use std::sync::{Mutex, OnceLock};

use crate::common::{self, lock};
use crate::json::{self, Value};
use crate::routers::QueryRouterResult;

/// What the test asked for, read from EPP_BUILD_DOUBLE_CONTROL.
#[derive(Default)]
struct Control {
    decode_pod: Option<String>,
    prefill_pod: Option<String>,
    decode_worker: Option<Value>,
    prefill_worker: Option<Value>,
    errors: BTreeMap<String, u32>,
}

fn read_control() -> Control {
    let Some(path) = std::env::var_os("EPP_BUILD_DOUBLE_CONTROL") else {
        return Control::default();
    };
    let Ok(text) = fs::read_to_string(&path) else {
        return Control::default();
    };
    let Ok(v) = json::parse(&text) else {
        common::record_violation();
        return Control::default();
    };
    let pod = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let mut errors = BTreeMap::new();
    if let Some(Value::Object(items)) = v.get("errors") {
        for (name, code) in items {
            match code {
                Value::Number(n) => match n.parse::<u32>() {
                    Ok(c) => {
                        errors.insert(name.clone(), c);
                    }
                    Err(_) => common::record_violation(),
                },
                _ => common::record_violation(),
            }
        }
    }
    Control {
        decode_pod: pod("decode_pod"),
        prefill_pod: pod("prefill_pod"),
        decode_worker: v.get("decode_worker").cloned(),
        prefill_worker: v.get("prefill_worker").cloned(),
        errors,
    }
}

fn code_of(c: u32) -> QueryRouterResult {
    use QueryRouterResult as R;
    match c {
        0 => R::Ok,
        1 => R::ErrInvalidHandle,
        2 => R::ErrInvalidParam,
        3 => R::ErrInitFailed,
        5 => R::ErrDisaggEnforced,
        6 => R::ErrTimeout,
        7 => R::ErrBackpressure,
        _ => R::ErrQueryFailed,
    }
}

/// Bookkeeping of the control itself, reported in the state file.
struct Log {
    calls: BTreeMap<&'static str, i64>,
    injected: i64,
    control_misses: i64,
    last_pick: BTreeMap<&'static str, String>,
    destroyed: Vec<(i64, i64)>,
    destroyed_pipelines: Vec<i64>,
}

fn log() -> &'static Mutex<Log> {
    static S: OnceLock<Mutex<Log>> = OnceLock::new();
    S.get_or_init(|| {
        Mutex::new(Log {
            calls: BTreeMap::new(),
            injected: 0,
            control_misses: 0,
            last_pick: BTreeMap::new(),
            destroyed: Vec::new(),
            destroyed_pipelines: Vec::new(),
        })
    })
}

/// One exported call in progress; the state file is written when it ends.
pub struct Call;

impl Drop for Call {
    fn drop(&mut self) {
        write_state();
    }
}

/// Hook at the start of an exported call that returns a code: counts it and
/// returns the code the control injects for it, if any.
pub fn enter(function: &'static str) -> Result<Call, QueryRouterResult> {
    *lock(log()).calls.entry(function).or_insert(0) += 1;
    if std::env::var_os("EPP_BUILD_DOUBLE_CONTROL").is_some() {
        if let Some(code) = read_control().errors.get(function) {
            lock(log()).injected += 1;
            write_state();
            return Err(code_of(*code));
        }
    }
    Ok(Call)
}

/// Hook at the start of an exported call of the pipeline generation:
/// counts it, and is Err when the control injects a failure for it (the
/// caller returns ERR, the only failure Dynamo's pipeline library has).
pub fn enter_pipeline(function: &'static str) -> Result<Call, ()> {
    enter(function).map_err(|_| ())
}

/// The workers the control picks for a pipeline query among the
/// pipeline's `workers` ids (0..workers): (decode, prefill), each None when
/// not programmed; Err (a control miss) when a programmed id is not one of
/// the pipeline's workers, a prefill worker equals the decode worker, or
/// an id is not a whole number (-1 for no prefill worker).
pub fn pick_workers(workers: u64) -> Result<(Option<i64>, Option<i64>), ()> {
    if std::env::var_os("EPP_BUILD_DOUBLE_CONTROL").is_none() {
        return Ok((None, None));
    }
    let c = read_control();
    let id = |v: &Option<Value>| -> Result<Option<i64>, ()> {
        match v {
            None => Ok(None),
            Some(Value::Number(n)) => n.parse::<i64>().map(Some).map_err(|_| ()),
            Some(_) => Err(()),
        }
    };
    let miss = || {
        lock(log()).control_misses += 1;
    };
    let (Ok(decode), Ok(prefill)) = (id(&c.decode_worker), id(&c.prefill_worker)) else {
        miss();
        return Err(());
    };
    let known = |w: i64| w >= 0 && (w as u64) < workers;
    if decode.is_some_and(|d| !known(d)) || prefill.is_some_and(|p| p != -1 && (!known(p) || Some(p) == decode)) {
        miss();
        return Err(());
    }
    if let Some(d) = decode {
        lock(log()).last_pick.insert("decode", d.to_string());
    }
    if let Some(p) = prefill {
        lock(log()).last_pick.insert("prefill", p.to_string());
    }
    Ok((decode, prefill))
}

/// Hook at the start of an exported call without a result code.
pub fn observe(function: &'static str) -> Call {
    *lock(log()).calls.entry(function).or_insert(0) += 1;
    Call
}

/// The worker the control picks for role among pods: Ok(None) when not
/// programmed for it, Err when the programmed pod is not a candidate.
pub fn pick(role: &'static str, pods: &[String]) -> Result<Option<u64>, QueryRouterResult> {
    if std::env::var_os("EPP_BUILD_DOUBLE_CONTROL").is_none() {
        return Ok(None);
    }
    let c = read_control();
    let want = if role == "prefill" { c.prefill_pod } else { c.decode_pod };
    let Some(want) = want else {
        return Ok(None);
    };
    if !pods.iter().any(|p| *p == want) {
        lock(log()).control_misses += 1;
        return Err(QueryRouterResult::ErrQueryFailed);
    }
    lock(log()).last_pick.insert(role, want.clone());
    Ok(Some(common::fnv1a64(want.as_bytes())))
}

/// Records what a handle still held when destroy freed it.
pub fn note_destroy(requests: i64, bookings: i64) {
    lock(log()).destroyed.push((requests, bookings));
}

/// Records the request ids a pipeline still held when destroy freed it.
pub fn note_destroy_pipeline(requests: i64) {
    lock(log()).destroyed_pipelines.push(requests);
}

/// The pipeline generation's part of the state file, under keys of its
/// own (a test process may use both generations).
fn pipeline_json(held: crate::pipeline::Held) -> String {
    let mut requests: Vec<String> =
        held.requests.iter().map(|(id, m)| format!("{}:{{\"prefill_complete\":{m}}}", quote(id))).collect();
    requests.sort();
    format!(
        "\"live_pipelines\":{},\"pipeline_requests\":{{{}}},\"outstanding_pipeline_results\":{}",
        held.live,
        requests.join(","),
        held.results
    )
}

fn quote(s: &str) -> String {
    Value::Str(s.to_string()).to_json()
}

fn write_state() {
    let Some(path) = std::env::var_os("EPP_BUILD_DOUBLE_STATE") else {
        return;
    };
    // One writer at a time, so the last rename holds the latest state.
    static WRITER: Mutex<()> = Mutex::new(());
    let _w = lock(&WRITER);
    let routers = crate::routers::state_json();
    let pipeline = pipeline_json(crate::pipeline::held());
    let body = {
        let l = lock(log());
        let calls: Vec<String> = l.calls.iter().map(|(k, v)| format!("{}:{v}", quote(k))).collect();
        let picks: Vec<String> = l.last_pick.iter().map(|(k, v)| format!("{}:{}", quote(k), quote(v))).collect();
        let destroyed: Vec<String> =
            l.destroyed.iter().map(|(r, b)| format!("{{\"requests\":{r},\"bookings\":{b}}}")).collect();
        let destroyed_pipelines: Vec<String> =
            l.destroyed_pipelines.iter().map(|r| format!("{{\"requests\":{r},\"bookings\":0}}")).collect();
        format!(
            "{{\"pid\":{},\"calls\":{{{}}},\"injected_errors\":{},\"control_misses\":{},\"last_pick\":{{{}}},\"destroyed\":[{}],\"destroyed_pipelines\":[{}],\"violations\":{},\"ignored_calls\":{},{},{}}}\n",
            std::process::id(),
            calls.join(","),
            l.injected,
            l.control_misses,
            picks.join(","),
            destroyed.join(","),
            destroyed_pipelines.join(","),
            common::violations(),
            crate::common::dynamo_double_ignored_calls(),
            routers,
            pipeline
        )
    };
    let mut tmp = path.clone();
    tmp.push(format!(".tmp{}", std::process::id()));
    if fs::write(&tmp, body).is_ok() && fs::rename(&tmp, &path).is_err() {
        let _ = fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routers::*;
    use std::ffi::CString;

    // One test owns the two variables: no other test calls the routers
    // generation, which is all they affect.
    #[test]
    fn control_picks_injects_and_state_reports() {
        let dir = std::env::temp_dir().join(format!("capi-double-control-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let (control, state) = (dir.join("control.json"), dir.join("state.json"));
        std::env::set_var("EPP_BUILD_DOUBLE_CONTROL", &control);
        std::env::set_var("EPP_BUILD_DOUBLE_STATE", &state);
        let read_state = || json::parse(&fs::read_to_string(&state).unwrap()).unwrap();
        let num = |v: &Value, k: &str| v.get(k).map(|n| n.to_json()).unwrap_or_default();

        let ns = CString::new("ns").unwrap();
        let mut h: RouterHandlesPtr = std::ptr::null_mut();
        assert_eq!(unsafe { create_routers(ns.as_ptr(), std::ptr::null(), false, &mut h) }, QueryRouterResult::Ok);
        let req = CString::new(r#"{"model":"m","prompt":"hi"}"#).unwrap();
        let pods = CString::new(r#"[{"pod":{"podName":"a"}},{"pod":{"podName":"b"}}]"#).unwrap();
        let mut out = std::mem::MaybeUninit::<CRoutingResult>::zeroed();

        fs::write(&control, r#"{"decode_pod":"b"}"#).unwrap();
        let r = unsafe { route_decode_request(h, req.as_ptr(), pods.as_ptr(), false, out.as_mut_ptr()) };
        assert_eq!(r, QueryRouterResult::Ok);
        assert_eq!(unsafe { out.assume_init_ref() }.decode_worker_id, common::fnv1a64(b"b"));
        unsafe { free_routing_result(out.as_mut_ptr()) };

        fs::write(&control, r#"{"decode_pod":"c"}"#).unwrap();
        let r = unsafe { route_decode_request(h, req.as_ptr(), pods.as_ptr(), false, out.as_mut_ptr()) };
        assert_eq!(r, QueryRouterResult::ErrQueryFailed, "a pod outside the candidates is never picked");

        let id = CString::new("r1").unwrap();
        fs::write(&control, r#"{"errors":{"free_request":4}}"#).unwrap();
        assert_eq!(unsafe { add_request(h, id.as_ptr(), std::ptr::null(), 0, 1, 0) }, QueryRouterResult::Ok);
        assert_eq!(unsafe { free_request(h, id.as_ptr()) }, QueryRouterResult::ErrQueryFailed);
        let s = read_state();
        assert_eq!(num(&s, "outstanding_requests"), "1");
        assert_eq!(num(&s, "injected_errors"), "1");
        assert_eq!(num(&s, "control_misses"), "1");
        assert_eq!(s.get("calls").map(|c| num(c, "route_decode_request")).unwrap(), "2");

        fs::remove_file(&control).unwrap();
        unsafe { destroy(h) };
        let s = read_state();
        assert_eq!(num(&s, "live_handles"), "0");
        assert_eq!(s.get("destroyed").unwrap().to_json(), r#"[{"requests":1,"bookings":0}]"#);
        assert_eq!(num(&s, "outstanding_routing_results"), "0");
        let _ = fs::remove_dir_all(&dir);
    }
}
