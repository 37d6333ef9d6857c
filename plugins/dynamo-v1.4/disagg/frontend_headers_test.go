package disagg_test

// frontendReads are the request headers the Dynamo 1.3 and 1.4 frontends
// read a worker or data-parallel rank from: the x-dynamo-* names and, when
// those are absent, their fallbacks (lib/llm/src/protocols/common/
// extensions.rs apply_header_routing_overrides at 4cba833f0 and
// e147ceeac056). The 1.2 line has its own list (lines/v1.2/disagg).
var frontendReads = []string{
	"x-dynamo-worker-instance-id", "x-dynamo-dp-rank", "x-dynamo-prefill-instance-id", "x-dynamo-prefill-dp-rank",
	"x-worker-instance-id", "x-dp-rank", "x-data-parallel-rank", "x-prefill-instance-id", "x-prefill-dp-rank",
}
