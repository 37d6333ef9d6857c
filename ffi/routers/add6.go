//go:build routers_add_6

package routers

/*
#include "variant_routers_add-6.h"
*/
import "C"

const addVariant = "6"

// addRequest registers with add_request: the library has no cache
// namespaces, so the namespace is dropped.
func addRequest(h *C.RouterHandles, id *C.char, tokens *C.uint32_t, count int, workerID uint64, dpRank uint32, _ string) error {
	code := C.add_request(h, id, tokens, C.size_t(count), C.uint64_t(workerID), C.uint32_t(dpRank))
	return check("add_request", uint32(code))
}
