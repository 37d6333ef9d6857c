#!/bin/sh
# Builds the C API inside the image solve, in the builder image on the
# build platform: "lib" cross-compiles the crate for $TARGETARCH with cargo,
# "cbindgen" writes the header with the cbindgen CLI. The same steps as the
# host build (internal/capi): cargo from the workspace root, -p CRATE
# --release --target TRIPLE, the target's gcc as linker and CC. Output in
# /capi/out, read back by epp-build:
#   lib/lib$CAPI_LIBRARY.a          the static library
#   cargo-messages.json             cargo's JSON messages (which package built the library)
#   outdirs/<out_dir>/**.h          headers the build scripts wrote into OUT_DIR
#   toolchain/{rustc,cargo,cc,go}   versions, for the report
#   cbindgen/<name>.h, cbindgen.log (cbindgen mode)
# Env (build args): CAPI_CRATE, CAPI_LIBRARY, CAPI_CRATE_DIR, CAPI_FEATURES,
# CAPI_TARGET_SUFFIX, CAPI_HEADER_NAME; CARGO_HOME and the target folder
# are cache mounts. CAPI_SRC and CAPI_OUT move /capi/src and /capi/out (tests).
set -eu
out=${CAPI_OUT:-/capi/out}
src=${CAPI_SRC:-/capi/src}
mkdir -p "$out"

if [ "${1:-lib}" = cbindgen ]; then
  name="${CAPI_HEADER_NAME:-${CAPI_CRATE#lib}.h}"
  mkdir -p "$out/cbindgen"
  if ! command -v cbindgen >/dev/null; then
    echo "the builder image has no cbindgen (Debian package cbindgen)" >"$out/cbindgen.log"
    exit 0
  fi
  # cbindgen before 0.27 (Debian's is 0.24) cannot parse Rust 2024's
  # #[unsafe(no_mangle)], #[unsafe(export_name = ...)] and
  # #[unsafe(link_section = ...)], nor `unsafe extern "C" {` blocks; they
  # mean the same without the wrapper. cbindgen reads a copy with them
  # rewritten (also keeping cargo metadata's Cargo.lock out of the source).
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$src" && tar --exclude=./target --exclude=./.git -cf - .) | (cd "$work" && tar -xf -)
  find "$work" -name '*.rs' -type f -exec sed -E -i \
    -e 's/\bunsafe[[:space:]]*\([[:space:]]*(no_mangle|export_name[[:space:]]*=[[:space:]]*"[^"]*"|link_section[[:space:]]*=[[:space:]]*"[^"]*")[[:space:]]*\)/\1/g' \
    -e 's/\bunsafe[[:space:]]+(extern[[:space:]]+"[^"]*"[[:space:]]*\{)/\1/g' {} +
  cd "$work/${CAPI_CRATE_DIR:-.}"
  if [ -f cbindgen.toml ]; then set -- --config cbindgen.toml; else set -- --lang c; fi
  if [ -n "$CAPI_CRATE" ]; then set -- "$@" --crate "$CAPI_CRATE"; fi
  # [parse.expand] in a config runs `cargo rustc -Zunpretty=expanded`, a
  # nightly option the stable toolchain answers under RUSTC_BOOTSTRAP.
  RUSTC_BOOTSTRAP=1 cbindgen --output "$out/cbindgen/$name" "$@" >"$out/cbindgen.log" 2>&1 || rm -f "$out/cbindgen/$name"
  exit 0
fi

case "$TARGETARCH" in
  amd64) triple=x86_64-unknown-linux-gnu cc=x86_64-linux-gnu-gcc ;;
  arm64) triple=aarch64-unknown-linux-gnu cc=aarch64-linux-gnu-gcc ;;
  *) echo "capi: unsupported TARGETARCH $TARGETARCH" >&2; exit 1 ;;
esac
for tool in cargo rustc "$cc"; do
  if ! command -v "$tool" >/dev/null; then
    echo "capi: the builder image has no $tool (it needs rustc-web, cargo-web, libstd-rust-web-dev for both arches and the cross gcc)" >&2
    exit 1
  fi
done
mkdir -p "$out/lib" "$out/toolchain" "$out/outdirs"
rustc -vV >"$out/toolchain/rustc"
cargo -V >"$out/toolchain/cargo"
echo "$cc $("$cc" -dumpfullversion)" >"$out/toolchain/cc"
if command -v go >/dev/null; then go env GOVERSION >"$out/toolchain/go"; fi

export CARGO_HOME=/cache/cargo
export CARGO_TARGET_DIR="/cache/target/$triple${CAPI_TARGET_SUFFIX:-}"
tvar=$(echo "$triple" | tr 'a-z-' 'A-Z_')
export "CARGO_TARGET_${tvar}_LINKER=$cc" "CC_$(echo "$triple" | tr - _)=$cc"
set -- build --release
if [ -n "$CAPI_CRATE" ]; then set -- "$@" -p "$CAPI_CRATE"; fi
set -- "$@" --target "$triple"
if [ -n "${CAPI_FEATURES:-}" ]; then set -- "$@" --features "$CAPI_FEATURES"; fi
echo "capi $TARGETARCH: cargo $*"
# Cargo decides freshness by mtime, and the target folder is a cache mount
# shared by every build of this feature set. The source comes from a build
# context whose files keep their own mtimes: a source that differs from the
# last build's but is older on disk would be taken as fresh (a stale library
# and header). Touched, the workspace's own crates rebuild whenever this step
# runs (BuildKit runs it only when its inputs changed); registry crates stay
# cached.
find "$src" -path "$src/target" -prune -o -type f -exec touch -c {} +
cd "$src"
cargo "$@" --message-format=json-render-diagnostics >"$out/cargo-messages.json"

lib="$CARGO_TARGET_DIR/$triple/release/lib$CAPI_LIBRARY.a"
if [ ! -f "$lib" ]; then
  echo "capi: cargo build for $TARGETARCH succeeded but $lib is missing: is the crate's lib name \"$CAPI_LIBRARY\" and crate-type staticlib?" >&2
  exit 1
fi
cp "$lib" "$out/lib/"
grep '"reason":"build-script-executed"' "$out/cargo-messages.json" |
  sed -n 's/.*"out_dir":"\([^"]*\)".*/\1/p' | while read -r dir; do
    [ -d "$dir" ] || continue
    mkdir -p "$out/outdirs$dir"
    (cd "$dir" && find . -type f -name '*.h' -exec cp --parents {} "$out/outdirs$dir/" \;)
  done
