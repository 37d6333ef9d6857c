//go:build routers_add_8 || !routers_add_6

package routers

/*
#include "variant_routers_add-8.h"
*/
import "C"

import "unsafe"

const addVariant = "8"

// addRequest registers with add_request_with_cache_namespace ("" for none).
func addRequest(h *C.RouterHandles, id *C.char, tokens *C.uint32_t, count int, workerID uint64, dpRank uint32, cacheNamespace string) error {
	// Go memory without Go pointers may be passed for the call's duration.
	var ns *C.uint8_t
	if cacheNamespace != "" {
		ns = (*C.uint8_t)(unsafe.Pointer(unsafe.StringData(cacheNamespace)))
	}
	code := C.add_request_with_cache_namespace(h, id, tokens, C.size_t(count),
		C.uint64_t(workerID), C.uint32_t(dpRank), ns, C.size_t(len(cacheNamespace)))
	return check("add_request_with_cache_namespace", uint32(code))
}
