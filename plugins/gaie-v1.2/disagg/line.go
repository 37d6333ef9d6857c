package disagg

// The behaviour of Dynamo v1.0's scorers that a later line on this plugin
// API changes. The recipe of such a line replaces this file with its own
// (plugins/gaie-v1.2/lines/<line>/disagg/line.go).

// sendsDPRanks: Dynamo v1.0's scorers send no data-parallel rank header
// and register every request on rank 0 (plugins/disagg at v1.0.1).
const sendsDPRanks = false

// handlerEnforcesDisagg: Dynamo v1.0's profile handler always falls back
// to aggregated routing when no prefill worker is found.
const handlerEnforcesDisagg = false
