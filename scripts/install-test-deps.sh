#!/usr/bin/env bash
# Installs what the build/image tests need on a Debian bookworm machine (root,
# non-interactive, idempotent): runc, the aarch64 cross toolchain and Rust std,
# cbindgen, qemu binfmt, a distribution registry, busybox-static and syft (the
# SBOM generator image of the attestation tests), buildkitd/buildctl built
# from the BuildKit module source (its go.mod has exclude directives, so
# `go install module@version` is refused; building a writable copy works),
# and Debian root file systems for amd64 and arm64, the base the builder
# and tool images are built FROM (no image can be pulled here).
#
# Env: BUILDKIT_VERSION (default v0.34.2), SYFT_VERSION (default v1.57.1),
# KUBERNETES_VERSION (default v1.34.2), ETCD_DEB_VERSION (default 3.4.23-4+b4),
# TOOLS_DIR (default $(go env GOPATH)/bin), EPP_BUILD_BASE_DIR (default
# /var/lib/epp-build-base).
set -euo pipefail

BUILDKIT_VERSION="${BUILDKIT_VERSION:-v0.34.2}"
SYFT_VERSION="${SYFT_VERSION:-v1.57.1}"
GO="${GO:-go}"
command -v "$GO" >/dev/null || GO=/usr/local/go/bin/go
TOOLS_DIR="${TOOLS_DIR:-$("$GO" env GOPATH)/bin}"
export DEBIAN_FRONTEND=noninteractive

start=$(date +%s)
step() { printf '== %s (+%ss)\n' "$*" "$(( $(date +%s) - start ))"; }

if [ "$(id -u)" -ne 0 ]; then
  echo "install-test-deps: must run as root (apt-get, binfmt_misc)" >&2
  exit 1
fi

step "apt packages"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  dpkg --add-architecture arm64
fi
packages=(runc cbindgen gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
  binfmt-support rustc-web cargo-web libstd-rust-web-dev libstd-rust-web-dev:arm64
  docker-registry busybox-static git debootstrap jq iproute2 shellcheck)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "all apt packages already installed"
fi
# Debian's registry package tries to start a service; there is no init system
# here, and tests run their own instance, so nothing else to do.

# etcd: Debian bookworm's etcd-server 3.4.23, the one Debian ships;
# kube-apiserver 1.34 (built below) serves the tests from it.
KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.34.2}"
ETCD_DEB_VERSION="${ETCD_DEB_VERSION:-3.4.23-4+b4}"
if dpkg-query -W -f='${Status} ${Version}' etcd-server 2>/dev/null | grep -qx "install ok installed ${ETCD_DEB_VERSION}"; then
  echo "already installed: etcd-server ${ETCD_DEB_VERSION}"
else
  apt-get update -q
  apt-get install -y -q --no-install-recommends "etcd-server=${ETCD_DEB_VERSION}"
fi
# The package would start a service; there is no init system here and the
# tests run their own etcd, so nothing else to do.

# Three lanes side by side, each line printed with its lane's name: two of
# Go builds, and debootstrap for the Debian base, which mostly waits on
# the network and the disk. Each build also waits on module downloads and
# links on one core; side by side, the cores stay busy.
tools_lane() {
  step "buildkitd/buildctl ${BUILDKIT_VERSION}"
  mkdir -p "$TOOLS_DIR"
  have_version() {
    [ -x "$TOOLS_DIR/buildkitd" ] && [ -x "$TOOLS_DIR/buildctl" ] &&
      "$TOOLS_DIR/buildkitd" --version 2>/dev/null | grep -q " ${BUILDKIT_VERSION} "
  }
  if have_version; then
    echo "already built: $("$TOOLS_DIR/buildkitd" --version)"
  else
    work="$(mktemp -d)"
    trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
    modjson="$(cd "$work" && GOFLAGS=-mod=mod "$GO" mod download -json "github.com/moby/buildkit@${BUILDKIT_VERSION}")" ||
      { printf 'go mod download: %s\n' "$modjson" >&2; exit 1; }
    moddir="$(printf '%s' "$modjson" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
    cp -r "$moddir" "$work/src"
    chmod -R u+w "$work/src"
    (cd "$work/src" && GOFLAGS=-buildvcs=false "$GO" build -trimpath \
      -ldflags "-X github.com/moby/buildkit/version.Version=${BUILDKIT_VERSION}" \
      -o "$TOOLS_DIR/" ./cmd/buildkitd ./cmd/buildctl)
    "$TOOLS_DIR/buildkitd" --version
  fi

  step "syft ${SYFT_VERSION} (the SBOM generator of the attestation tests)"
  # BuildKit's default SBOM generator image cannot be pulled here; the tests
  # assemble one from this syft (static: the image is FROM scratch) and
  # busybox-static. A cold build takes about 5 minutes on 2 cores.
  if [ -x "$TOOLS_DIR/syft" ] && grep -q "${SYFT_VERSION}\$" <<<"$("$TOOLS_DIR/syft" version 2>/dev/null)"; then
    echo "already built: syft ${SYFT_VERSION}"
  else
    CGO_ENABLED=0 GOFLAGS=-mod=mod GOBIN="$TOOLS_DIR" "$GO" install -trimpath \
      -ldflags "-X main.version=${SYFT_VERSION}" "github.com/anchore/syft/cmd/syft@${SYFT_VERSION}"
    "$TOOLS_DIR/syft" version | grep Version
  fi

  # cosign verifies the signed report in TestCosignVerifiesOurSignature. Its
  # cold build is long (hundreds of packages; over an hour on a busy 2-core
  # machine), so it is built only on request:
  # INSTALL_COSIGN=1. Without it that test is skipped; the signature is still
  # checked by the sigstore library's verifier in the other tests.
  COSIGN_VERSION="${COSIGN_VERSION:-v2.6.2}"
  if [ "${INSTALL_COSIGN:-0}" = 1 ]; then
    step "cosign ${COSIGN_VERSION} (checks the signed report attestation)"
    if [ -x "$TOOLS_DIR/cosign" ] && "$TOOLS_DIR/cosign" version 2>/dev/null | grep -q "${COSIGN_VERSION#v}"; then
      echo "already built: cosign ${COSIGN_VERSION}"
    else
      CGO_ENABLED=0 GOFLAGS=-mod=mod GOBIN="$TOOLS_DIR" "$GO" install -trimpath \
        -ldflags "-X sigs.k8s.io/release-utils/version.gitVersion=${COSIGN_VERSION}" \
        "github.com/sigstore/cosign/v2/cmd/cosign@${COSIGN_VERSION}"
    fi
  fi
}

apiserver_lane() {
  step "control plane for the integration tests: kube-apiserver"
  # GAIE's integration suites (controller-runtime envtest) and our own need a
  # real kube-apiserver and etcd. k8s.io/kubernetes is served by the Go module
  # proxy from v1.34 on, but its go.mod replaces the ~31 staging modules
  # (k8s.io/api, k8s.io/apiserver, ...) with folders the module zip lacks; a
  # writable copy that drops those replaces and requires the published staging
  # modules (v0.X.Y for v1.X.Y) builds. v1.34.2: the first minor the proxy
  # serves is 1.34, the oldest that builds this way; GAIE's own Makefiles run
  # these suites on envtest's 1.31, and the client libraries of our GAIE pins
  # are 0.33 (v0.5.1) and 0.35 (7c1f1994dbff), each within one minor of 1.34.
  # A cold build takes about 13 CPU-minutes (about 6 minutes on 2 idle cores).
  mkdir -p "$TOOLS_DIR"
  if [ -x "$TOOLS_DIR/kube-apiserver" ] &&
    [ "$("$TOOLS_DIR/kube-apiserver" --version 2>/dev/null)" = "Kubernetes ${KUBERNETES_VERSION}" ]; then
    echo "already built: $("$TOOLS_DIR/kube-apiserver" --version)"
  else
    kwork="$(mktemp -d)"
    build_apiserver() {
      local staging_version="v0.${KUBERNETES_VERSION#v1.}" modjson moddir m major minor
      local vpkg=k8s.io/component-base/version edits=()
      modjson="$(cd "$kwork" && GOFLAGS=-mod=mod "$GO" mod download -json "k8s.io/kubernetes@${KUBERNETES_VERSION}")" ||
        { printf 'go mod download: %s\n' "$modjson" >&2; return 1; }
      moddir="$(printf '%s' "$modjson" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
      cp -r "$moddir" "$kwork/src"
      chmod -R u+w "$kwork/src"
      cd "$kwork/src"
      # Every replace into ./staging names a staging module.
      for m in $("$GO" mod edit -json | jq -r '.Replace[]? | select(.New.Path | startswith("./staging/")) | .Old.Path'); do
        edits+=("-dropreplace=$m" "-require=$m@$staging_version")
      done
      echo "$(( ${#edits[@]} / 2 )) staging modules required at $staging_version"
      "$GO" mod edit "${edits[@]}"
      major="${KUBERNETES_VERSION#v}"; major="${major%%.*}"
      minor="${KUBERNETES_VERSION#v*.}"; minor="${minor%%.*}"
      # The version ldflags make --version (checked above) and /version report it.
      GOWORK=off GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 "$GO" build -trimpath \
        -ldflags "-X $vpkg.gitVersion=${KUBERNETES_VERSION} -X $vpkg.gitMajor=$major -X $vpkg.gitMinor=$minor -X $vpkg.gitTreeState=clean" \
        -o "$TOOLS_DIR/kube-apiserver" ./cmd/kube-apiserver
    }
    # A subshell with its own EXIT trap: set -e still applies inside, and the
    # copy is removed whether the build fails or not.
    (
      trap 'chmod -R u+w "$kwork" 2>/dev/null; rm -rf "$kwork"' EXIT
      build_apiserver
    )
    "$TOOLS_DIR/kube-apiserver" --version
  fi
}

debian_lane() {

  step "binfmt for arm64 (best effort)"
  if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
    if mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null; then
      echo "mounted binfmt_misc"
    else
      echo "could not mount binfmt_misc: arm64 smoke tests will be skipped"
    fi
  fi
  if [ -e /proc/sys/fs/binfmt_misc/status ]; then
    if update-binfmts --enable qemu-aarch64 2>/dev/null; then
      echo "qemu-aarch64 binfmt: $(head -n1 /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null || echo unknown)"
    else
      echo "update-binfmts --enable qemu-aarch64 failed: arm64 smoke tests will be skipped"
    fi
  fi

  step "Debian base image root file systems (amd64, arm64)"
  # The builder image (epp-build builder) and the tool image are built FROM
  # Debian, as users build them FROM docker.io/library/debian:bookworm; no
  # image can be pulled here, so the tests push one made from these root
  # file systems to their own registry. arm64's second stage runs under the
  # qemu binfmt enabled above. One tarball per architecture, with Debian's
  # image's sources (updates, security) and no package caches.
  base_dir="${EPP_BUILD_BASE_DIR:-/var/lib/epp-build-base}"
  mkdir -p "$base_dir"
  for arch in amd64 arm64; do
    tarball="$base_dir/bookworm-$arch.tar"
    if [ -f "$tarball" ]; then
      echo "already made: $tarball"
      continue
    fi
    rootfs="$base_dir/rootfs-$arch.tmp"
    log="$base_dir/debootstrap-$arch.log"
    rm -rf "$rootfs"
    if debootstrap --arch="$arch" --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$log" 2>&1; then
      printf '%s\n' 'deb http://deb.debian.org/debian bookworm main' \
        'deb http://deb.debian.org/debian bookworm-updates main' \
        'deb http://deb.debian.org/debian-security bookworm-security main' >"$rootfs/etc/apt/sources.list"
      rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/*
      : >"$rootfs/etc/resolv.conf"
      tar --numeric-owner -C "$rootfs" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
      rm -rf "$rootfs" "$log"
      echo "made $tarball"
    else
      echo "debootstrap for $arch failed (see $log): the builder and tool image tests cannot run" >&2
      rm -rf "$rootfs"
      exit 1
    fi
  done
}

# Each lane says when it ends, so the slowest one shows in the log.
lane() {
  ( set -euo pipefail; "${1}_lane"; step "lane finished" ) 2>&1 | sed -u "s/^/[$1] /"
  return "${PIPESTATUS[0]}"
}
pids=()
for name in tools apiserver debian; do
  lane "$name" &
  pids+=("$name:$!")
done
failed=""
for entry in "${pids[@]}"; do
  wait "${entry#*:}" || failed="${failed:+$failed, }${entry%%:*}"
done
if [ -n "$failed" ]; then
  echo "install-test-deps: the lane(s) $failed failed (their lines above say why)" >&2
  exit 1
fi

step "done"
echo "tools in $TOOLS_DIR (add it to PATH, or tests find it through GOPATH/bin)"
