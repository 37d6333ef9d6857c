#!/usr/bin/env bash
# Starts a local buildkitd (runc worker, as root) for `epp-build build` and
# prints the BUILDKIT_HOST to use. Stop it with: kill "$(cat "$STATE_DIR/buildkitd.pid")".
#
# Env: STATE_DIR (default /var/lib/epp-build-buildkitd), BUILDKITD (default:
# buildkitd on PATH, else $(go env GOPATH)/bin/buildkitd).
set -euo pipefail

STATE_DIR="${STATE_DIR:-/var/lib/epp-build-buildkitd}"
BUILDKITD="${BUILDKITD:-$(command -v buildkitd || echo "$(go env GOPATH)/bin/buildkitd")}"
sock="$STATE_DIR/buildkitd.sock"
pidfile="$STATE_DIR/buildkitd.pid"

if [ ! -x "$BUILDKITD" ]; then
  echo "buildkitd not found: run scripts/install-test-deps.sh first" >&2
  exit 1
fi
mkdir -p "$STATE_DIR"
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  echo "buildkitd already running (pid $(cat "$pidfile"))" >&2
else
  nohup "$BUILDKITD" --root "$STATE_DIR/root" --addr "unix://$sock" \
    --oci-worker=true --containerd-worker=false >"$STATE_DIR/buildkitd.log" 2>&1 &
  echo $! >"$pidfile"
  for _ in $(seq 1 100); do
    [ -S "$sock" ] && break
    sleep 0.1
  done
  [ -S "$sock" ] || { echo "buildkitd did not start; see $STATE_DIR/buildkitd.log" >&2; exit 1; }
fi
echo "export BUILDKIT_HOST=unix://$sock"
