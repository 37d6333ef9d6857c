// TEST DOUBLE build script. Dynamo's build.rs runs cbindgen and writes the
// crate's C header; this one has no dependencies, so it copies the
// checked-in header that describes this build (the default one, or the
// pipeline08 one when that feature is on) into OUT_DIR, where the build's
// C API stage looks for a build script's header first.
use std::env;
use std::fs;
use std::path::Path;

fn main() {
    let default = "include/dynamo_llm_capi.h";
    let pipeline08 = "include/dynamo_llm_capi_pipeline08.h";
    println!("cargo:rerun-if-changed={default}");
    println!("cargo:rerun-if-changed={pipeline08}");
    let src = if env::var_os("CARGO_FEATURE_PIPELINE08").is_some() { pipeline08 } else { default };
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("dynamo_llm_capi.h");
    if let Err(e) = fs::copy(src, &out) {
        panic!("copy {src} to {}: {e}", out.display());
    }
}
