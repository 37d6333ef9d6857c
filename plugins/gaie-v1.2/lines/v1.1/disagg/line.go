// The file of the disagg package that differs on Dynamo's 1.1 line: the
// recipe patches/v1.1.1 adds it to the shared package
// (plugins/gaie-v1.2/disagg) in place of that package's line.go.
// (Not a package comment: the shared package has its own.)

package disagg

// sendsDPRanks: Dynamo v1.1's scorers send the routed data-parallel ranks
// in x-dp-rank and x-prefill-dp-rank (the latter only when the router
// chose one) and register the request on the decode rank
// (deploy/inference-gateway/epp/pkg/plugins/disagg at 01a4b6d6ddd5).
const sendsDPRanks = true

// handlerEnforcesDisagg: Dynamo v1.1's profile handler refuses a request it
// cannot route disaggregated when DYN_ENFORCE_DISAGG is true
// (pkg/plugins/disagg/profile_handler.go at 01a4b6d6ddd5).
const handlerEnforcesDisagg = true
