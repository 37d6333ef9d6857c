package disagg

// The worker and data-parallel rank headers the Dynamo frontend reads, as
// named from Dynamo's 1.3 line on (#10873 put them under x-dynamo-*). A
// line whose frontend reads other names gives its own header_names.go
// (lines/<line>/disagg) and excludes this one in its recipe.
const (
	WorkerIDHeader        = "x-dynamo-worker-instance-id"
	DPRankHeader          = "x-dynamo-dp-rank"
	PrefillWorkerIDHeader = "x-dynamo-prefill-instance-id"
	PrefillDPRankHeader   = "x-dynamo-prefill-dp-rank"
)

// Names the 1.3 and 1.4 frontends also read for the same values when the
// x-dynamo-* header is absent (lib/llm/src/protocols/common/extensions.rs
// apply_header_routing_overrides, at 4cba833f0 and e147ceeac056). A client
// could pick a worker through them, so the plugins remove them wherever
// they remove client copies of the headers above.
var (
	workerAliases  = []string{"x-worker-instance-id", "x-dp-rank", "x-data-parallel-rank"}
	prefillAliases = []string{"x-prefill-instance-id", "x-prefill-dp-rank"}
)
