#!/bin/sh
# BuildKit SBOM generator protocol (docs/attestations/sbom-protocol.md in
# BuildKit): scan $BUILDKIT_SCAN_SOURCE, and each root file system under
# $BUILDKIT_SCAN_SOURCE_EXTRAS when that is set, with syft; write one in-toto
# statement with the SPDX document per root to
# $BUILDKIT_SCAN_DESTINATION/<basename of the root>.spdx.json.
set -eu
: "${BUILDKIT_SCAN_DESTINATION:?BUILDKIT_SCAN_DESTINATION is required}"
: "${BUILDKIT_SCAN_SOURCE:?BUILDKIT_SCAN_SOURCE is required}"

scan() {
  spdx="${TMPDIR:-/tmp}/$(basename "$1").spdx"
  syft scan "dir:$1" --quiet --output "spdx-json=$spdx"
  {
    printf '{"_type":"https://in-toto.io/Statement/v0.1","predicateType":"https://spdx.dev/Document","subject":[],"predicate":'
    cat "$spdx"
    printf '}\n'
  } > "$BUILDKIT_SCAN_DESTINATION/$(basename "$1").spdx.json"
}

scan "$BUILDKIT_SCAN_SOURCE"
extras="${BUILDKIT_SCAN_SOURCE_EXTRAS:-}"
if [ -n "$extras" ] && [ -d "$extras" ]; then
  for root in "$extras"/*; do
    if [ -d "$root" ]; then scan "$root"; fi
  done
fi
