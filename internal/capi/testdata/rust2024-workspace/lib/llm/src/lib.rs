//! FIXTURE: the path dependency of the C API crate.

/// Picks a worker for a prompt length (a stand-in for the router).
pub fn pick_worker(prompt_len: usize) -> i64 {
    (prompt_len % 4) as i64
}
