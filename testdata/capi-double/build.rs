// TEST DOUBLE build script. Dynamo's build.rs runs cbindgen and writes the
// crate's C header; this one has no dependencies, so it copies the
// checked-in header that describes this build into OUT_DIR, where the
// build's C API stage looks for a build script's header first.
//
// It also turns the "routers" variant features (Cargo.toml) into one cfg
// per axis, refusing two values of one axis, and picks the header of that
// combination: every combination a test or recipe builds has a checked-in
// header generated from its own cbindgen config (see README.md).
use std::env;
use std::fs;
use std::path::Path;

/// One variant axis: its cfg name, its values with their cargo features,
/// and the value built when no feature of the axis is on.
struct Axis {
    cfg: &'static str,
    values: &'static [(&'static str, &'static str)],
    default: &'static str,
}

const AXES: [Axis; 3] = [
    Axis { cfg: "routers_result", values: &[("5", "ROUTERS_RESULT5"), ("7", "ROUTERS_RESULT7"), ("9", "ROUTERS_RESULT9")], default: "9" },
    Axis { cfg: "routers_add", values: &[("6", "ROUTERS_ADD6"), ("8", "ROUTERS_ADD8")], default: "8" },
    Axis {
        cfg: "reservation",
        values: &[("none", "RESERVATION_NONE"), ("4", "RESERVATION_4"), ("2", "RESERVATION_2"), ("timeout", "RESERVATION_TIMEOUT")],
        default: "4",
    },
];

/// The checked-in header of each routers combination (result, add,
/// reservation) this crate is built as.
const HEADERS: [(&str, &str, &str, &str); 6] = [
    ("9", "8", "4", "include/dynamo_llm_capi.h"),
    ("5", "6", "none", "include/dynamo_llm_capi_dynamo-v1.0.h"),
    ("7", "6", "none", "include/dynamo_llm_capi_dynamo-v1.1.h"),
    ("9", "8", "none", "include/dynamo_llm_capi_dynamo-v1.4.h"),
    ("7", "6", "2", "include/dynamo_llm_capi_result7-reservation2.h"),
    ("9", "8", "timeout", "include/dynamo_llm_capi_reservation-timeout.h"),
];

fn main() {
    // Marks a build whose variant cfgs this script set; without it (a copy
    // of the crate without its build script, as a test of the C API
    // stage's cbindgen fallback makes) the sources build the default
    // variant.
    println!("cargo:rustc-check-cfg=cfg(epp_double_variant)");
    println!("cargo:rustc-cfg=epp_double_variant");
    let mut chosen = Vec::new();
    for axis in &AXES {
        let on: Vec<&str> = axis
            .values
            .iter()
            .filter(|(_, feature)| env::var_os(format!("CARGO_FEATURE_{feature}")).is_some())
            .map(|(value, _)| *value)
            .collect();
        if on.len() > 1 {
            panic!("{}: features for {} are exclusive, got {:?}", axis.cfg, axis.cfg, on);
        }
        let value = on.first().copied().unwrap_or(axis.default);
        let all: Vec<String> = axis.values.iter().map(|(v, _)| format!("\"{v}\"")).collect();
        println!("cargo:rustc-check-cfg=cfg({}, values({}))", axis.cfg, all.join(", "));
        println!("cargo:rustc-cfg={}=\"{}\"", axis.cfg, value);
        chosen.push(value);
    }

    let pipeline08 = "include/dynamo_llm_capi_pipeline08.h";
    println!("cargo:rerun-if-changed=include");
    let src = if env::var_os("CARGO_FEATURE_PIPELINE08").is_some() {
        pipeline08
    } else {
        match HEADERS.iter().find(|(r, a, v, _)| [*r, *a, *v] == chosen[..]) {
            Some((_, _, _, h)) => h,
            None => panic!(
                "no checked-in header for routers_result={} routers_add={} reservation={}: add a cbindgen config for it (see README.md)",
                chosen[0], chosen[1], chosen[2]
            ),
        }
    };
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("dynamo_llm_capi.h");
    if let Err(e) = fs::copy(src, &out) {
        panic!("copy {src} to {}: {e}", out.display());
    }
}
