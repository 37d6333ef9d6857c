// The 1.2 line's list for the shared disagg tests (in place of
// disagg/frontend_headers_test.go).

package disagg_test

// frontendReads are the request headers the Dynamo 1.2 frontend reads a
// worker or data-parallel rank from (lib/llm/src/protocols/openai/nvext.rs
// apply_header_routing_overrides at 976dc4d068d3); it has no fallbacks.
var frontendReads = []string{
	"x-worker-instance-id", "x-dp-rank", "x-prefill-instance-id", "x-prefill-dp-rank",
}
