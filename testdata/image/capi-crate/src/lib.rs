//! A minimal crate with the Dynamo C API's crate and library names and no
//! committed header, so the C API stage's cbindgen path is exercised
//! (testdata/capi-double ships its header in include/).

use std::os::raw::c_char;
use std::sync::atomic::{AtomicBool, Ordering};

static READY: AtomicBool = AtomicBool::new(false);

/// Starts the (pretend) runtime. Returns 0 on success.
#[no_mangle]
pub extern "C" fn dynamo_llm_init(
    namespace: *const c_char,
    component: *const c_char,
    kv_block_size: u32,
) -> u32 {
    if namespace.is_null() || component.is_null() || kv_block_size == 0 {
        return 1;
    }
    READY.store(true, Ordering::SeqCst);
    0
}

/// Stops the runtime. Returns 0 on success, 1 when it was not started.
#[no_mangle]
pub extern "C" fn dynamo_llm_shutdown() -> u32 {
    if READY.swap(false, Ordering::SeqCst) {
        0
    } else {
        1
    }
}

/// The C API generation this library speaks, for smoke checks.
#[no_mangle]
pub extern "C" fn dynamo_capi_generation() -> u32 {
    1
}
