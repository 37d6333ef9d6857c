package disagg

import (
	"crypto/rand"
	"fmt"
	"strconv"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

// Request headers the plugins set for the Dynamo frontend. Client-sent
// copies are removed before scheduling: only the EPP decides routing. The
// worker and rank headers, whose names depend on the Dynamo line, are in
// header_names.go.
const (
	BookingIDHeader   = "x-dynamo-epp-booking-id"
	RoutingModeHeader = "x-dynamo-routing-mode"
)

// Values of RoutingModeHeader.
const (
	ModeAggregated    = "aggregated"
	ModeDisaggregated = "disaggregated"
)

// The headers each scorer owns, with the frontend's other names for them
// (header_names.go): all are removed before the scorer writes its own.
var (
	prefillHeaders = append([]string{PrefillWorkerIDHeader, PrefillDPRankHeader}, prefillAliases...)
	decodeHeaders  = append([]string{WorkerIDHeader, DPRankHeader, RoutingModeHeader}, workerAliases...)
)

func deleteHeaders(h map[string]string, names ...string) {
	for _, n := range names {
		delete(h, n)
	}
}

// setWorker writes a worker id header and, when the rank is set, its
// data-parallel rank header.
func setWorker(h map[string]string, idHeader, rankHeader string, worker uint64, rank uint32) {
	h[idHeader] = strconv.FormatUint(worker, 10)
	if rank != kvrouter.UnsetDPRank {
		h[rankHeader] = strconv.FormatUint(uint64(rank), 10)
	} else {
		delete(h, rankHeader)
	}
}

// newBookingID mints a random (version 4) UUID. A booking id is never taken
// from the request: a client choosing it could collide with, or free,
// another request's booking at the router.
func newBookingID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics on a broken source)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
