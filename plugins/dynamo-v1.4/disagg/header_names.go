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
