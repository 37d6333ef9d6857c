#!/usr/bin/env bash
# Tests the "routers" binding (ffi/routers) and the given Go packages
# against the C API test double built as each known variant of Dynamo's
# routers C API, with the Go build tags of that variant. The default
# double (what build-double.sh builds without CAPI_DOUBLE_FEATURES) is
# put back at the end.
#
# Usage: ffi/test-routers-variants.sh [go test flags...]
# Each line of VARIANTS is: cargo features of the double, then the Go tags.
set -euo pipefail

ffi_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(dirname "$ffi_dir")

VARIANTS="
dynamo-v1.0 routers_result_5,routers_add_6,routers_reservation_none
dynamo-v1.1 routers_result_7,routers_add_6,routers_reservation_none
dynamo-v1.4 routers_result_9,routers_add_8,routers_reservation_none
routers-result7,routers-add6,reservation-2 routers_result_7,routers_add_6,routers_reservation_2
reservation-timeout routers_result_9,routers_add_8,routers_reservation_timeout
reservation-4 routers_result_9,routers_add_8,routers_reservation_4
"

restore() { "$ffi_dir/build-double.sh" >/dev/null; }
trap restore EXIT

while read -r features tags; do
	[ -n "$features" ] || continue
	echo "== double $features, tags $tags"
	CAPI_DOUBLE_FEATURES=$features "$ffi_dir/build-double.sh" >/dev/null
	(cd "$ffi_dir" && go test -tags "$tags" "$@" ./routers/...)
	(cd "$repo_dir/plugins/dynamo-v1.4" && go test -tags "$tags" "$@" ./routerffi/... ./disagg/... ./booking/...)
done <<< "$VARIANTS"
