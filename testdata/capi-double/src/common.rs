//! Helpers shared by both C API generations: reading C strings safely,
//! the deterministic "model" (FNV-1a hashing, byte tokens), environment
//! knobs and the misuse counter tests read through a double-only hook.

use std::ffi::CStr;
use std::os::raw::c_char;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::json::{self, Value};

/// Reads a NUL-terminated UTF-8 string; None for null or invalid UTF-8.
///
/// # Safety
/// ptr is null or points at a NUL-terminated string valid for this call.
pub unsafe fn c_str<'a>(ptr: *const c_char) -> Option<&'a str> {
    if ptr.is_null() {
        return None;
    }
    CStr::from_ptr(ptr).to_str().ok()
}

/// 64-bit FNV-1a: stable across runs and platforms, which is what makes the
/// double deterministic.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The prompt text of an OpenAI-style request: chat message contents
/// (string or text parts) joined by newlines, else the completion "prompt".
pub fn prompt_text(request: &Value) -> Option<String> {
    if let Some(messages) = request.get("messages").and_then(Value::as_array) {
        let mut parts = Vec::new();
        for m in messages {
            match m.get("content") {
                Some(Value::Str(s)) => parts.push(s.clone()),
                Some(Value::Array(items)) => {
                    for item in items {
                        if let Some(t) = item.get("text").and_then(Value::as_str) {
                            parts.push(t.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
        return Some(parts.join("\n"));
    }
    request.get("prompt").and_then(Value::as_str).map(str::to_string)
}

/// Parses a request body and extracts its prompt; None when it is not a JSON
/// object with messages or a prompt.
pub fn parse_request(text: &str) -> Option<(Value, String)> {
    let v = json::parse(text).ok()?;
    if !matches!(v, Value::Object(_)) {
        return None;
    }
    let prompt = prompt_text(&v)?;
    Some((v, prompt))
}

/// One token per prompt byte: the byte value plus one, so token 0 never
/// appears and a test can tell "no tokens" from "zero tokens".
pub fn tokens_for(prompt: &str) -> Vec<u32> {
    prompt.bytes().map(|b| b as u32 + 1).collect()
}

/// Number of workers the double pretends to have: DYNAMO_DOUBLE_WORKERS
/// (a positive integer), default 4.
pub fn worker_count() -> u64 {
    std::env::var("DYNAMO_DOUBLE_WORKERS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(4)
}

/// Whether model is served: listed in DYNAMO_DOUBLE_MODELS (comma
/// separated) when that is set, otherwise anything but "" and "unknown".
pub fn model_known(model: &str) -> bool {
    match std::env::var("DYNAMO_DOUBLE_MODELS") {
        Ok(list) if !list.trim().is_empty() => list.split(',').any(|m| m.trim() == model),
        _ => !model.is_empty() && model != "unknown",
    }
}

/// Sleeps DYNAMO_DOUBLE_QUERY_DELAY_US microseconds inside query calls so
/// tests can widen the window in which a racing close would hit a call in
/// flight. Read per call so a test can change it at run time.
pub fn query_delay() {
    if let Some(us) = std::env::var("DYNAMO_DOUBLE_QUERY_DELAY_US")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        if us > 0 {
            std::thread::sleep(std::time::Duration::from_micros(us));
        }
    }
}

/// Counts caller misuse the real library would turn into undefined
/// behaviour: destroying a handle with a call in flight, using a destroyed
/// handle, freeing a result twice or freeing foreign memory.
static VIOLATIONS: AtomicI64 = AtomicI64::new(0);

pub fn record_violation() {
    VIOLATIONS.fetch_add(1, Ordering::SeqCst);
}

pub fn violations() -> i64 {
    VIOLATIONS.load(Ordering::SeqCst)
}

static IGNORED: AtomicI64 = AtomicI64::new(0);

/// Counts a call the real library answers Ok without doing anything (an
/// unknown or duplicate request id): the caller got no error, but nothing
/// happened.
pub fn record_ignored_call() {
    IGNORED.fetch_add(1, Ordering::SeqCst);
}

/// Double-only hook: calls answered Ok but ignored (see record_ignored_call).
#[no_mangle]
pub extern "C" fn dynamo_double_ignored_calls() -> i64 {
    IGNORED.load(Ordering::SeqCst)
}

/// Locks a mutex, ignoring poisoning: with panic = "abort" a poisoned lock
/// cannot be observed, and unwrap would be a panic site at the FFI edge.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Copies a slice into a malloc-free, Rust-owned boxed slice and leaks it
/// as a raw pointer; returns null for an empty slice (like Dynamo does).
pub fn leak_slice<T: Copy>(items: &[T]) -> *mut T {
    if items.is_empty() {
        return std::ptr::null_mut();
    }
    Box::into_raw(items.to_vec().into_boxed_slice()) as *mut T
}

/// Frees a slice made by leak_slice.
///
/// # Safety
/// ptr/len must come from leak_slice and not have been freed.
pub unsafe fn free_slice<T>(ptr: *mut T, len: usize) {
    if !ptr.is_null() && len > 0 {
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_reference_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
    }

    #[test]
    fn prompt_from_chat_parts_and_completion() {
        let (_, p) = parse_request(
            r#"{"messages":[{"role":"user","content":"hi"},{"content":[{"type":"text","text":"there"}]}]}"#,
        )
        .unwrap();
        assert_eq!(p, "hi\nthere");
        let (_, p) = parse_request(r#"{"prompt":"abc"}"#).unwrap();
        assert_eq!(p, "abc");
        assert!(parse_request(r#"{"model":"m"}"#).is_none());
        assert!(parse_request("[1]").is_none());
        assert_eq!(tokens_for("AB"), vec![66, 67]);
    }
}
