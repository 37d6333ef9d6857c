//! Fixture stand-in for Dynamo's lib/llm: the routing the C API crate
//! calls into.

/// FNV-1a 64 of bytes.
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100000001b3))
}

/// Picks a worker id for a request.
pub fn pick_worker(request: &[u8]) -> u64 {
    hash(request) % 4
}
