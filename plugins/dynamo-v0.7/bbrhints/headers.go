// Package bbrhints carries the Dynamo routing decision from the Endpoint
// Picker to the Body Based Router: the EPP writes it into request headers,
// BBR reads those headers on one stream and writes the values into that
// stream's JSON body under "nvext", where the Dynamo frontend looks for them.
//
// The header names and the token encoding are the wire contract between the
// two processes, so both ends import them from here.
package bbrhints

import (
	"encoding/base64"
	"encoding/json"
)

const (
	// WorkerIDHeader is where the kv-aware scorer records the worker the
	// Dynamo router chose (a decimal int64 instance id).
	WorkerIDHeader = "x-worker-instance-id"
	// InjectWorkerIDHeader asks BBR to write the worker id into the body as
	// nvext.backend_instance_id. The pre-request plugin sets it from
	// WorkerIDHeader once the id has been validated.
	InjectWorkerIDHeader = "x-epp-inject-nvext-worker-instance-id"
	// InjectTokenDataHeader asks BBR to write the router's token ids into the
	// body as nvext.token_data; the value is EncodeTokenData's output.
	InjectTokenDataHeader = "x-epp-inject-nvext-token-data"
)

// Body keys written by Inject.
const (
	NvextKey             = "nvext"
	BackendInstanceIDKey = "backend_instance_id"
	TokenDataKey         = "token_data"
)

// EncodeTokenData renders token ids as base64 (standard alphabet, padded) of
// a JSON array of integers: header-safe, and any JSON reader can decode it.
func EncodeTokenData(tokens []uint32) string {
	if tokens == nil {
		tokens = []uint32{}
	}
	raw, _ := json.Marshal(tokens) // a []uint32 always marshals
	return base64.StdEncoding.EncodeToString(raw)
}
