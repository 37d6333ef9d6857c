// The file of the disagg plugins that differs on Dynamo's 1.2 line: the
// recipe patches/v1.2.1 adds it to the shared disagg package
// (plugins/dynamo-v1.4/disagg) in place of that package's header_names.go.
// (Not a package comment: the shared package has its own.)

package disagg

// The worker and data-parallel rank headers the Dynamo 1.2 frontend reads
// (lib/llm/src/protocols/openai/nvext.rs at 976dc4d068d3); the x-dynamo-*
// names came in 1.3.
const (
	WorkerIDHeader        = "x-worker-instance-id"
	DPRankHeader          = "x-dp-rank"
	PrefillWorkerIDHeader = "x-prefill-instance-id"
	PrefillDPRankHeader   = "x-prefill-dp-rank"
)

// The 1.2 frontend reads no other names for these values.
var (
	workerAliases  []string
	prefillAliases []string
)
