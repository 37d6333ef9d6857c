#!/usr/bin/env bash
# `make test`: every stage of the test suite in order, each one timed, then
# one summary of all Go tests: passed, failed, and every skipped test with
# its reason, so a skip is visible without -v. Stops at the first stage
# that fails; the times and the summary are printed either way.
set -uo pipefail
cd "$(dirname "$0")/.."
GO="${GO:-go}"
RESULTS="${RESULTS:-$PWD/.test-results}"
rm -rf "$RESULTS" && mkdir -p "$RESULTS"
export RESULTS

# Transparent huge pages are the host's setting: the run leaves them as
# found unless asked. EPP_BUILD_THP=always turns them on for the run, when
# the kernel leaves them to madvise and the run may write the setting
# (root): almost all of the run is the Go compiler, whose heap then
# faults in 2 MB pages instead of 4 kB ones. On a 2-core VM whose page
# faults are costly, a cold compile of 400 packages took 57-60 s instead
# of 78-86 s. Where the kernel also has the smaller sizes (multi-size THP,
# Linux 6.8 on) and leaves them off, they follow for the run too. Every
# setting is put back when the run ends, also when it is stopped.
thp=/sys/kernel/mm/transparent_hugepage
thp_state() { cat "$thp/enabled" "$thp"/hugepages-*kB/enabled 2>/dev/null; }
thp_before=$(thp_state)
if [ "${EPP_BUILD_THP:-keep}" = always ] && [ -w "$thp/enabled" ]; then
  was=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$thp/enabled")
  if [ "$was" = madvise ] && echo always >"$thp/enabled" 2>/dev/null; then
    restore="echo $was >$thp/enabled"
    sizes=0
    for size in "$thp"/hugepages-*kB/enabled; do
      [ -w "$size" ] && grep -q '\[never\]' "$size" && echo inherit >"$size" 2>/dev/null || continue
      restore="$restore; echo never >$size"
      sizes=$((sizes + 1))
    done
    trap "$restore" EXIT
    # A stopped run puts them back too: without these, TERM or INT ends
    # bash without running the EXIT trap.
    trap 'exit 143' TERM
    trap 'exit 130' INT
    echo "== transparent huge pages: always for this run (was $was), and $sizes smaller sizes (EPP_BUILD_THP=always)"
  fi
fi

# The main module's tests run tier by tier (docs/testing.md), each its own
# timed stage: unit needs Go and git, integration the daemons and
# toolchains, e2e the whole-product runs.
# The integration and e2e tiers run side by side (test-slow): apart, their
# two longest packages would run one after the other.
stages=(deps double lint check-patches test-unit test-slow nested fuzz)
times=()
failed=""
begin=$(date +%s)
for stage in "${stages[@]}"; do
  echo "== $stage"
  start=$(date +%s)
  make --no-print-directory "$stage" RESULTS="$RESULTS"
  rc=$?
  took=$(( $(date +%s) - start ))
  if [ "$rc" -eq 0 ]; then status=ok; else status="FAILED (exit $rc)"; fi
  times+=("$(printf '%-16s %6ss  %s' "$stage" "$took" "$status")")
  echo "== $stage: ${took}s, $status"
  if [ "$rc" -ne 0 ]; then failed="$stage"; break; fi
done

echo "== stage times"
printf '  %s\n' "${times[@]}"
printf '  %-16s %6ss\n' total "$(( $(date +%s) - begin ))"
echo "== summary"
shopt -s nullglob
results=("$RESULTS"/*.json)
if [ "${#results[@]}" -gt 0 ]; then
  "$GO" run ./tools/testsummary "${results[@]}" || failed="${failed:-summary}"
fi
# The host is left as found: the settings are read again (after the
# opt-in's own restore, which runs at exit, so only without it).
if [ -z "${restore:-}" ] && [ "$(thp_state)" != "$thp_before" ]; then
  echo "make test: the transparent huge page settings changed during the run"
  failed="${failed:-host settings}"
fi
if [ -n "$failed" ]; then
  echo "make test: failed at $failed"
  exit 1
fi
