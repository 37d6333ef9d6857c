#!/usr/bin/env bash
# Starts a local registry (Debian's docker-registry, a real distribution
# server) on 127.0.0.1 for `epp-build build --push`, storing images under
# STATE_DIR. Stop it with: kill "$(cat "$STATE_DIR/registry.pid")".
#
# Env: STATE_DIR (default /var/lib/epp-build-registry), PORT (default 5000).
set -euo pipefail

STATE_DIR="${STATE_DIR:-/var/lib/epp-build-registry}"
PORT="${PORT:-5000}"
pidfile="$STATE_DIR/registry.pid"

command -v docker-registry >/dev/null || { echo "docker-registry not found: run scripts/install-test-deps.sh first" >&2; exit 1; }
mkdir -p "$STATE_DIR/data"
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  echo "registry already running on 127.0.0.1:$PORT (pid $(cat "$pidfile"))"
  exit 0
fi
cat >"$STATE_DIR/config.yml" <<CONFIG
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $STATE_DIR/data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$PORT
CONFIG
nohup docker-registry serve "$STATE_DIR/config.yml" >"$STATE_DIR/registry.log" 2>&1 &
echo $! >"$pidfile"
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$PORT/v2/" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$PORT/v2/" >/dev/null || { echo "registry did not start; see $STATE_DIR/registry.log" >&2; exit 1; }
echo "registry on 127.0.0.1:$PORT (pid $(cat "$pidfile"))"
