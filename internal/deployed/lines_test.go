//go:build e2e

package deployed

import (
	"fmt"
	"strconv"
	"strings"
)

// A line is one release line as Dynamo's operator deploys it. Adding a
// line to the test is adding a row to lines. Every fact is read from
// Dynamo's sources and cited in docs/compat/<version>.md ("Runs as
// deployed").
type line struct {
	// version is the recipe folder under patches/.
	version string
	// capiFeatures are the cargo features of the C API test double that
	// give this line's C API.
	capiFeatures string
	// capiVariants are the variants the build must detect in the
	// double's header and name in its log ("routers_result 7"), one per
	// axis the line's binding has.
	capiVariants []string
	// reservations says whether the line's C API has prefill reservation
	// calls: without them a disaggregated request routes prefill the
	// advisory way and the router holds no booking at any time.
	reservations bool
	// capi names the C API calls of the line's generation.
	capi capiCalls
	// frontendPool says the InferencePool selects the frontend pods
	// (Dynamo v0.9 and older): every frontend scores the same, GAIE's
	// picker takes any of them, and the frontend routes to the worker the
	// EPP's headers name. Otherwise the pool selects the worker pods,
	// which run the frontend as a sidecar, and the endpoint is the pod of
	// the router's pick.
	frontendPool bool
	// scoresTie says the line's scorers give every candidate the same
	// score and route through headers only (Dynamo v1.1 and older):
	// GAIE's picker takes any pod the decode profile keeps, and the
	// frontend routes to the worker x-worker-instance-id names.
	scoresTie bool
	// cancelLeak, when set, says why a client that goes away before the
	// response ends leaves its request registered in the router: the
	// cancellation checks are not run, and the line's table says so.
	cancelLeak string
	// cancelLeakPhases, when set, narrows cancelLeak to the phases it
	// names ("request", "response-headers"); the other phases are checked.
	cancelLeakPhases []string
	// graphs are the graph shapes the line's router can answer (both when
	// unset).
	graphs []graph
	// metricsFlag is the flag that moves the metrics port ("--metrics-port"
	// when unset).
	metricsFlag string
	// model says the deployment holds an InferenceModel for the model (the
	// v1alpha2 API's chart creates one, with criticality Critical).
	model bool
	// chartLeak, when set, says why the config the deployment ships frees
	// no request: the test runs that config once to show the request stays
	// registered, and runs the other checks with seriesConfig, the
	// config this project's series ships in the patched tree (a path in
	// it), which has the cleanup plugin.
	chartLeak    string
	seriesConfig string
	// note is logged by every run of the line: what the row cannot check.
	note string
	// args are the EPP's arguments as the operator writes them.
	args func(o operatorInput) []string
	// env is the environment the operator gives the EPP container.
	env func(o operatorInput) map[string]string
	// poolAPI is the InferencePool's group/version and poolSelector the
	// labels the operator's pool selects worker pods by.
	poolAPI      string
	poolSelector func(o operatorInput) map[string]string
	// targetPort is the pool's target port (the frontend's HTTP port).
	targetPort int
	// roleLabel is the pod label the graph's label filters read; the
	// operator sets it to the worker's role.
	roleLabel string
	// aggregatedUnlabelled says the aggregated example's worker has no
	// role, so its pods lack roleLabel (the decode filter's allowsNoLabel
	// keeps them).
	aggregatedUnlabelled bool
	// staleArgs are arguments an older Dynamo deployment wrote that this
	// line's GAIE refuses at start-up (the harness self-test starts the
	// EPP with them and requires the start to fail); staleArgsFrom says
	// where they come from.
	staleArgs     func(o operatorInput) []string
	staleArgsFrom string
	// configs are the EndpointPickerConfigs of Dynamo's graphs, by graph.
	configs map[graph]string
	// headers are the request headers the EPP writes for Dynamo's
	// frontend, with what the frontend parses them as.
	headers []headerSpec
	// bodyFields are the body fields the EPP writes for the frontend.
	bodyFields []bodySpec
	// clientHeaders are routing headers the frontend reads, with values a
	// client might send on an aggregated request; the EPP's answer must
	// remove each or overwrite it, never let Envoy forward it.
	clientHeaders map[string]string
}

// graph is a Dynamo graph shape: aggregated or disaggregated workers.
type graph string

const (
	aggregated    graph = "aggregated"
	disaggregated graph = "disaggregated"
)

// operatorInput is what the operator derives the EPP's pod from.
type operatorInput struct {
	graph      graph  // the graph's shape
	graphName  string // the DynamoGraphDeployment's name
	namespace  string // its Kubernetes namespace
	grpcPort   int    // the ext-proc port (the operator's 9002)
	healthPort int    // the gRPC health port (the operator's 9003)
	configFile string // where the ConfigMap is mounted
	podName    string // the EPP pod's name (downward API)
	dynamoNS   string // the graph's Dynamo namespace
}

// headerKind is the type Dynamo's frontend parses a header value as.
type headerKind string

const (
	u64 headerKind = "u64"
	u32 headerKind = "u32"
	str headerKind = "string"
	// b64u32s is standard base64 of a JSON array of u32 (the token data
	// Dynamo v0.7's EPP hands BBR in x-epp-inject-nvext-token-data).
	b64u32s headerKind = "base64 JSON []u32"
)

// headerSpec is one header the EPP writes. graphs says in which graphs it
// must be present; worker names the role whose worker id it carries.
type headerSpec struct {
	name   string
	kind   headerKind
	graphs []graph
	worker string // "decode", "prefill" or ""
	value  string // the exact value, when fixed
}

// bodySpec is one body field the EPP writes, by its JSON path, with the
// type the frontend parses it as: an array of u32 (kind unset) or a u64
// (JSON number) carrying the id of worker's pick. graphs says in which
// graphs it must be present (all when unset).
type bodySpec struct {
	path   []string
	kind   headerKind
	graphs []graph
	worker string
}

// lines are the release lines the test runs.
var lines = []line{v142, v131, v121, v111, v101, v091, v080, v070}

// v142 is the 1.4 line (recipe v1.4.2: GAIE 7c1f1994dbff, routers C API).
var v142 = line{
	version: "v1.4.2",
	// lib/bindings/c/src/lib.rs at M: the 9-field CRoutingResult,
	// add_request_with_cache_namespace and no prefill reservation calls
	// (docs/compat/v1.4.2.md "C API").
	capiFeatures: "dynamo-v1.4",
	capiVariants: []string{"routers_result 9", "routers_add 8", "routers_reservation none"},
	capi:         routersCalls("add_request_with_cache_namespace"),
	// deploy/operator/internal/dynamo/component_epp.go at M (docs/compat/v1.4.2.md).
	args: operatorArgs14,
	// component_epp.go and component_common.go at M, and what the example
	// graphs add to the EPP's container (DYN_KV_CACHE_BLOCK_SIZE,
	// DYN_MODEL_NAME).
	env: func(o operatorInput) map[string]string {
		return map[string]string{
			"DYN_KV_CACHE_BLOCK_SIZE":      map[graph]string{aggregated: "128", disaggregated: "16"}[o.graph],
			"DYN_MODEL_NAME":               model,
			"USE_STREAMING":                "true",
			"RUST_LOG":                     "info",
			"DYN_ENFORCE_DISAGG":           "false",
			"DYN_NAMESPACE_PREFIX":         o.dynamoNS,
			"DYN_NAMESPACE":                o.dynamoNS,
			"DYN_COMPONENT":                "epp",
			"DYN_PARENT_DGD_K8S_NAME":      o.graphName,
			"DYN_PARENT_DGD_K8S_NAMESPACE": o.namespace,
			"DYN_DISCOVERY_BACKEND":        "kubernetes",
			"POD_NAME":                     o.podName,
			"POD_NAMESPACE":                o.namespace,
		}
	},
	// deploy/operator/internal/dynamo/epp/inference_pool.go at M.
	poolAPI: "inference.networking.k8s.io/v1",
	poolSelector: func(o operatorInput) map[string]string {
		return map[string]string{
			"nvidia.com/dynamo-component-class": "worker",
			"nvidia.com/dynamo-namespace":       o.dynamoNS,
		}
	},
	targetPort: 8000,
	// Operators before #8093 (a2a2753d0) wrote single-dash long flags;
	// this GAIE parses flags with pflag, which refuses them.
	staleArgs:     singleDash(operatorArgs14),
	staleArgsFrom: "the single-dash flags of operators before Dynamo #8093",
	// deploy/operator/internal/dynamo/graph.go at M: a v1beta1 worker of
	// type decode or prefill is labelled with its type.
	roleLabel: "nvidia.com/dynamo-component-type",
	configs: map[graph]string{
		aggregated:    fmt.Sprintf(v14AggConfig, "nvidia.com/dynamo-component-type"),
		disaggregated: fmt.Sprintf(v14DisaggConfig, "nvidia.com/dynamo-component-type"),
	},
	// lib/llm/src/protocols/common/extensions.rs (M), docs/compat/v1.4.2.md "Headers".
	headers: []headerSpec{
		{name: "x-dynamo-worker-instance-id", kind: u64, graphs: []graph{aggregated, disaggregated}, worker: "decode"},
		{name: "x-dynamo-prefill-instance-id", kind: u64, graphs: []graph{disaggregated}, worker: "prefill"},
		{name: "x-dynamo-routing-mode", kind: str, graphs: []graph{aggregated}, value: "aggregated"},
		{name: "x-dynamo-routing-mode", kind: str, graphs: []graph{disaggregated}, value: "disaggregated"},
	},
	// nvext.token_data: Option<Vec<u32>> (M extensions.rs).
	bodyFields: []bodySpec{{path: []string{"nvext", "token_data"}}},
	// M extensions.rs apply_header_routing_overrides reads these, the
	// fallback names too; docs/compat/v1.4.2.md "Headers".
	clientHeaders: map[string]string{
		"x-dynamo-prefill-instance-id": "42",
		"x-dynamo-dp-rank":             "7",
		"x-prefill-instance-id":        "43",
		"x-dp-rank":                    "8",
	},
}

// v131 is the 1.3 line (recipe v1.3.1: GAIE 206d40dca75d, the v1.4.2
// plugins). Dynamo's facts are read at C13 = 4cba833f0161 (the release/1.3.0
// cut; docs/compat/v1.3.1.md "Runs as deployed").
var v131 = line{
	version: "v1.3.1",
	// lib/bindings/c/src/lib.rs at C13: the 7-field CRoutingResult,
	// add_request only, no prefill reservations.
	capiFeatures: "dynamo-v1.1",
	capiVariants: []string{"routers_result 7", "routers_add 6", "routers_reservation none"},
	capi:         routersCalls("add_request"),
	// component_epp.go at C13 writes the same double-dash flags as at M
	// (#8093 predates the cut).
	args: v142.args,
	// component_epp.go at C13: RUST_LOG differs from M; the example graphs
	// at C13 set DYN_ENFORCE_DISAGG on the EPP's container (false
	// aggregated, true disaggregated), which the operator's MergeEnvs
	// (graph.go) lets override its own false.
	env: func(o operatorInput) map[string]string {
		env := v142.env(o)
		env["RUST_LOG"] = "debug,dynamo_llm::kv_router=trace"
		env["DYN_ENFORCE_DISAGG"] = map[graph]string{aggregated: "false", disaggregated: "true"}[o.graph]
		return env
	},
	// epp/inference_pool.go and consts.go at C13: as at M.
	poolAPI:       v142.poolAPI,
	poolSelector:  v142.poolSelector,
	targetPort:    8000,
	staleArgs:     v142.staleArgs,
	staleArgsFrom: v142.staleArgsFrom,
	// The C13 examples are v1beta1 graphs whose label filters read
	// nvidia.com/dynamo-component-type (graph.go generateLabels).
	roleLabel: "nvidia.com/dynamo-component-type",
	configs:   v142.configs,
	// The x-dynamo-* names came with #10873 before the cut; the C13
	// frontend reads them first (lib/llm/src/protocols/common/extensions.rs).
	headers:    v142.headers,
	bodyFields: v142.bodyFields,
}

// v121 is the 1.2 line (recipe v1.2.1: GAIE 206d40dca75d, the v1.4.2
// plugins with the 1.2 header names). Dynamo's facts are read at C12 =
// 976dc4d068d3 (the release/1.2.0 cut; docs/compat/v1.2.1.md "Runs as
// deployed").
var v121 = line{
	version: "v1.2.1",
	// lib/bindings/c/src/lib.rs at C12: as at C13 for the prototypes.
	capiFeatures: "dynamo-v1.1",
	capiVariants: []string{"routers_result 7", "routers_add 6", "routers_reservation none"},
	capi:         routersCalls("add_request"),
	// component_epp.go at C12 is the same blob as at C13.
	args: v131.args,
	env:  v131.env,
	// epp/inference_pool.go, component_common.go and consts.go at C12: as
	// at M.
	poolAPI:       v142.poolAPI,
	poolSelector:  v142.poolSelector,
	targetPort:    8000,
	staleArgs:     v142.staleArgs,
	staleArgsFrom: v142.staleArgsFrom,
	// The C12 examples are v1alpha1 graphs with subComponentType decode /
	// prefill; the operator labels those pods with
	// nvidia.com/dynamo-sub-component-type (graph.go generateLabels), and
	// the examples' label filters read it.
	roleLabel: "nvidia.com/dynamo-sub-component-type",
	configs: map[graph]string{
		aggregated:    fmt.Sprintf(v14AggConfig, "nvidia.com/dynamo-sub-component-type"),
		disaggregated: fmt.Sprintf(v14DisaggConfig, "nvidia.com/dynamo-sub-component-type"),
	},
	// plugins/disagg/decode_scorer.go at C12; the C12 frontend reads the
	// unprefixed names only (lib/llm/src/protocols/openai/nvext.rs).
	headers: []headerSpec{
		{name: "x-worker-instance-id", kind: u64, graphs: []graph{aggregated, disaggregated}, worker: "decode"},
		{name: "x-prefill-instance-id", kind: u64, graphs: []graph{disaggregated}, worker: "prefill"},
		{name: "x-dynamo-routing-mode", kind: str, graphs: []graph{aggregated}, value: "aggregated"},
		{name: "x-dynamo-routing-mode", kind: str, graphs: []graph{disaggregated}, value: "disaggregated"},
	},
	bodyFields: v142.bodyFields,
}

// v111 is the 1.1 line (recipe v1.1.1: GAIE v1.2.1, plugins/gaie-v1.2 with
// the 1.1 line files). Dynamo's facts are read at C11 = 01a4b6d6ddd5 (the
// release/1.1 cut, the recipe's reproduces.commit; docs/compat/v1.1.1.md
// "Runs as deployed").
var v111 = line{
	version: "v1.1.1",
	// lib/bindings/c/src/lib.rs at C11: the 7-field CRoutingResult,
	// add_request only, no reservations.
	capiFeatures: "dynamo-v1.1",
	capiVariants: []string{"routers_result 7", "routers_add 6", "routers_reservation none"},
	capi:         routersCalls("add_request"),
	// deploy/operator/internal/dynamo/component_epp.go at C11: single-dash
	// long flags (before #8093), which GAIE v1.2.1's Go flag package takes.
	args: operatorArgs10,
	// component_epp.go and component_common.go at C11; the example graphs
	// (examples/backends/vllm/deploy/gaie/agg.yaml, disagg.yaml) add
	// DYN_KV_CACHE_BLOCK_SIZE, DYN_MODEL_NAME and DYN_ENFORCE_DISAGG, which
	// overrides the operator's false.
	env: func(o operatorInput) map[string]string {
		env := operatorEnv10(o)
		delete(env, "DYN_DECODE_FALLBACK")
		env["DYN_ENFORCE_DISAGG"] = map[graph]string{aggregated: "false", disaggregated: "true"}[o.graph]
		env["DYN_NAMESPACE_PREFIX"] = o.dynamoNS
		env["DYN_KV_CACHE_BLOCK_SIZE"] = map[graph]string{aggregated: "128", disaggregated: "16"}[o.graph]
		env["DYN_MODEL_NAME"] = model
		return env
	},
	poolAPI:              v101.poolAPI,
	poolSelector:         v101.poolSelector,
	targetPort:           8000,
	staleArgs:            v101.staleArgs,
	staleArgsFrom:        v101.staleArgsFrom,
	roleLabel:            v101.roleLabel,
	aggregatedUnlabelled: true,
	configs:              v101.configs,
	scoresTie:            true,
	cancelLeak:           gaie121CancelLeak,
	// plugins/disagg/decode_scorer.go and prefill_scorer.go at C11; the
	// frontend parses them in lib/llm/src/protocols/openai/nvext.rs. The
	// double's ranks are unset, so x-prefill-dp-rank is not written.
	headers: []headerSpec{
		{name: "x-worker-instance-id", kind: u64, graphs: []graph{aggregated, disaggregated}, worker: "decode"},
		{name: "x-dp-rank", kind: u32, graphs: []graph{aggregated, disaggregated}},
		{name: "x-prefill-instance-id", kind: u64, graphs: []graph{disaggregated}, worker: "prefill"},
		{name: "x-dynamo-routing-mode", kind: str, graphs: []graph{aggregated}, value: "aggregated"},
		{name: "x-dynamo-routing-mode", kind: str, graphs: []graph{disaggregated}, value: "disaggregated"},
	},
}

// v101 is the 1.0 line (recipe v1.0.1: GAIE v1.2.1, plugins/gaie-v1.2).
// Dynamo's facts are read at the v1.0.1 tag, V101 = 5534a9df6d37
// (docs/compat/v1.0.1.md "Runs as deployed").
var v101 = line{
	version: "v1.0.1",
	// lib/bindings/c/src/lib.rs at V101: the 5-field CRoutingResult,
	// add_request only, no reservations.
	capiFeatures: "dynamo-v1.0",
	capiVariants: []string{"routers_result 5", "routers_add 6", "routers_reservation none"},
	capi:         routersCalls("add_request"),
	// deploy/operator/internal/dynamo/component_epp.go at V101: the same
	// single-dash flags as at C11.
	args: operatorArgs10,
	// component_epp.go (USE_STREAMING, RUST_LOG) and component_common.go
	// (DYN_NAMESPACE, DYN_COMPONENT, DYN_PARENT_DGD_K8S_*, POD_*,
	// DYN_DISCOVERY_BACKEND) at V101; the aggregated example graph
	// (examples/backends/vllm/deploy/gaie/agg.yaml) adds
	// DYN_DECODE_FALLBACK=true, the disaggregated one
	// (recipes/llama-3-70b/vllm/disagg-single-node/gaie/deploy.yaml)
	// nothing.
	env: operatorEnv10,
	// deploy/operator/internal/dynamo/epp/inference_pool.go at V101: the
	// pool selects nvidia.com/dynamo-component-type: worker (the class
	// label came later).
	poolAPI: "inference.networking.k8s.io/v1",
	poolSelector: func(o operatorInput) map[string]string {
		return map[string]string{
			"nvidia.com/dynamo-component-type": "worker",
			"nvidia.com/dynamo-namespace":      o.dynamoNS,
		}
	},
	targetPort: 8000,
	// Dynamo v0.8's chart wrote GAIE v0.5's camelCase flags; GAIE v1.2.1
	// renamed them and its flag package refuses the old names.
	staleArgs: func(o operatorInput) []string {
		return []string{
			"-poolName", o.graphName + "-pool",
			"-poolNamespace", o.namespace,
			"-v", "4",
			"--zap-encoder", "json",
			"-grpcPort", strconv.Itoa(o.grpcPort),
			"-grpcHealthPort", strconv.Itoa(o.healthPort),
			"-configFile", o.configFile,
		}
	},
	staleArgsFrom: "the camelCase flags of Dynamo v0.8's chart",
	// plugins/disagg/decode_scorer.go at V101: 1 for every pod.
	scoresTie:  true,
	cancelLeak: gaie121CancelLeak,
	// The examples' workers are componentType worker with
	// subComponentType decode / prefill (the aggregated one none), which
	// graph.go generateLabels writes as nvidia.com/dynamo-sub-component-type.
	roleLabel:            "nvidia.com/dynamo-sub-component-type",
	aggregatedUnlabelled: true,
	configs: map[graph]string{
		aggregated:    fmt.Sprintf(v14AggConfig, "nvidia.com/dynamo-sub-component-type"),
		disaggregated: fmt.Sprintf(v14DisaggConfig, "nvidia.com/dynamo-sub-component-type"),
	},
	// plugins/disagg/decode_scorer.go and prefill_scorer.go at V101; the
	// frontend parses them in lib/llm/src/protocols/openai/nvext.rs.
	// GAIE v1.2.1 forwards the body unchanged: no body field.
	headers: []headerSpec{
		{name: "x-worker-instance-id", kind: u64, graphs: []graph{aggregated, disaggregated}, worker: "decode"},
		{name: "x-prefill-instance-id", kind: u64, graphs: []graph{disaggregated}, worker: "prefill"},
		{name: "x-dynamo-routing-mode", kind: str, graphs: []graph{aggregated}, value: "aggregated"},
		{name: "x-dynamo-routing-mode", kind: str, graphs: []graph{disaggregated}, value: "disaggregated"},
	},
}

// capiCalls are the C API calls the test follows in the double's state.
type capiCalls struct {
	create, destroy string
	// routeDecode routes a request (for the pipeline generation, decode
	// and prefill at once); routePrefill routes its prefill, when a
	// separate call does.
	routeDecode, routePrefill string
	// register books a routed request with the router, markPrefill marks
	// its prefill complete, free ends it; freeResult frees a routing
	// result.
	register, markPrefill, free, freeResult string
	// workerIDs says workers are named by the pipeline's worker ids
	// (0 to DYNAMO_DOUBLE_WORKERS-1) rather than by pod.
	workerIDs bool
}

// routersCalls are the routers generation's calls, register being
// add_request or add_request_with_cache_namespace.
func routersCalls(register string) capiCalls {
	return capiCalls{
		create: "create_routers", destroy: "destroy",
		routeDecode: "route_decode_request", routePrefill: "route_prefill_request",
		register: register, markPrefill: "mark_prefill_complete", free: "free_request", freeResult: "free_routing_result",
	}
}

// pipeline08Calls are the pipeline generation's calls with Dynamo v0.8.0's
// signatures (lib/bindings/c/src/lib.rs at v0.8.0, unchanged to v0.9.1).
var pipeline08Calls = capiCalls{
	create: "dynamo_create_worker_selection_pipeline", destroy: "dynamo_destroy_worker_selection_pipeline",
	routeDecode: "dynamo_query_worker_selection_and_annotate",
	register:    "dynamo_router_add_request", markPrefill: "dynamo_router_mark_prefill_complete",
	free: "dynamo_router_free_request", freeResult: "dynamo_free_worker_selection_result",
	workerIDs: true,
}

// v091 is the 0.9 line (recipe v0.9.1: GAIE v1.2.1, plugins/gaie-v1.2's
// kv-aware-scorer over the pipeline C API). Dynamo v0.9.1 has no operator
// EPP component: its EPP is deployed by the dynamo-gaie Helm chart, read
// at the v0.9.1 tag, V091 = ebcbd617aa4d (docs/compat/v0.9.1.md "Runs as
// deployed"); chart/ = deploy/inference-gateway/helm/dynamo-gaie/.
var v091 = line{
	version: "v0.9.1",
	// lib/bindings/c/src/lib.rs at V091: the pipeline generation with
	// v0.8.0's signatures.
	capiFeatures: "pipeline08",
	capi:         pipeline08Calls,
	// chart/templates/dynamo-epp.yaml at V091: the operator's single-dash
	// flags, with the chart's config file.
	args: operatorArgs10,
	// chart/templates/dynamo-epp.yaml with chart/values.yaml at V091
	// (useDynamo true, useEtcd false, kvBlockSize 16, platform release
	// dynamo-platform in namespace my-model; HF_TOKEN comes from an
	// optional secret, absent here).
	env: func(o operatorInput) map[string]string {
		return map[string]string{
			"POD_NAMESPACE":         o.namespace,
			"POD_NAME":              o.podName,
			"POD_UID":               "00000000-0000-4000-8000-000000000001",
			"DYN_DISCOVERY_BACKEND": "kubernetes",
			"NATS_SERVER":           "nats://dynamo-platform-nats.my-model:4222",
			"DYNAMO_NAMESPACE":      o.dynamoNS,
			"DYNAMO_KV_BLOCK_SIZE":  "16",
			"USE_STREAMING":         "true",
			"RUST_LOG":              "debug,dynamo_llm::kv_router=trace",
		}
	},
	// chart/templates/inference-pool.yaml at V091: the pool selects the
	// graph's Frontend pods on the chart's port 8000.
	poolAPI: "inference.networking.k8s.io/v1",
	poolSelector: func(o operatorInput) map[string]string {
		return map[string]string{
			"nvidia.com/dynamo-component": "Frontend",
			"nvidia.com/dynamo-namespace": o.dynamoNS,
		}
	},
	targetPort:    8000,
	frontendPool:  true,
	scoresTie:     true,
	cancelLeak:    gaie121CancelLeak,
	staleArgs:     v101.staleArgs,
	staleArgsFrom: v101.staleArgsFrom,
	// chart/epp-config-dynamo.yaml at V091, for either graph: the graph's
	// shape is the router's answer (a prefill worker or none).
	configs: map[graph]string{aggregated: v09Config, disaggregated: v09Config},
	// epp/pkg/plugins/dynamo_kv_scorer/plugin.go at V091; the frontend
	// parses them in lib/llm/src/protocols/openai/nvext.rs.
	headers: []headerSpec{
		{name: "x-worker-instance-id", kind: u64, graphs: []graph{aggregated, disaggregated}, worker: "decode"},
		{name: "x-prefill-instance-id", kind: u64, graphs: []graph{disaggregated}, worker: "prefill"},
		{name: "x-dynamo-routing-mode", kind: str, graphs: []graph{aggregated}, value: "aggregated"},
		{name: "x-dynamo-routing-mode", kind: str, graphs: []graph{disaggregated}, value: "disaggregated"},
		{name: "x-enable-local-updates", kind: str, graphs: []graph{aggregated, disaggregated}, value: "false"},
	},
}

// gaie121CancelLeak is why the GAIE v1.2.1 lines skip the cancellation
// checks: a defect this test found, shared with Dynamo's own EPP there.
const gaie121CancelLeak = "GAIE v1.2.1 ends the ext-proc stream of a cancelled request without calling any plugin, " +
	"so the request registered in PreRequest is never freed (docs/compat/v1.0.1.md, \"Runs as deployed\")"

// v09Config is the chart's EndpointPickerConfig (chart/epp-config-dynamo.yaml
// at V091, comments left out).
const v09Config = `apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: single-profile-handler
- name: picker
  type: max-score-picker
- name: dyn-kv
  type: kv-aware-scorer
schedulingProfiles:
- name: default
  plugins:
  - pluginRef: dyn-kv
    weight: 1
  - pluginRef: picker
`

// singleDash turns args' double-dash long flags into single-dash ones.
func singleDash(args func(o operatorInput) []string) func(o operatorInput) []string {
	return func(o operatorInput) []string {
		var out []string
		for _, a := range args(o) {
			out = append(out, strings.Replace(a, "--", "-", 1))
		}
		return out
	}
}

// The graphs' EndpointPickerConfigs, as the operator writes them into the
// ConfigMap (apiVersion and kind set): examples/backends/vllm/deploy/gaie/
// disagg.yaml and agg.yaml at M. %[1]s is the role label.
const (
	v14DisaggConfig = `apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: disagg-profile-handler
- name: prefill-filter
  parameters:
    allowsNoLabel: false
    label: %[1]s
    validValues:
    - prefill
  type: label-filter
- name: decode-filter
  parameters:
    allowsNoLabel: false
    label: %[1]s
    validValues:
    - decode
  type: label-filter
- name: picker
  type: max-score-picker
- name: dyn-prefill
  type: dyn-prefill-scorer
- name: dyn-decode
  type: dyn-decode-scorer
schedulingProfiles:
- name: prefill
  plugins:
  - pluginRef: prefill-filter
    weight: 1
  - pluginRef: dyn-prefill
    weight: 1
  - pluginRef: picker
    weight: 1
- name: decode
  plugins:
  - pluginRef: decode-filter
    weight: 1
  - pluginRef: dyn-decode
    weight: 1
  - pluginRef: picker
    weight: 1
`
	v14AggConfig = `apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: disagg-profile-handler
- name: decode-filter
  parameters:
    allowsNoLabel: true
    label: %[1]s
    validValues:
    - decode
  type: label-filter
- name: picker
  type: max-score-picker
- name: dyn-decode
  type: dyn-decode-scorer
schedulingProfiles:
- name: decode
  plugins:
  - pluginRef: decode-filter
    weight: 1
  - pluginRef: dyn-decode
    weight: 1
  - pluginRef: picker
    weight: 1
`
)

// operatorArgs14 are the operator's EPP arguments since Dynamo #8093
// (a2a2753d0): double-dash long flags.
func operatorArgs14(o operatorInput) []string {
	return []string{
		"--pool-name", o.graphName + "-pool",
		"--pool-namespace", o.namespace,
		"--pool-group", "inference.networking.k8s.io",
		"-v", "4",
		"--zap-encoder", "json",
		"--grpc-port", strconv.Itoa(o.grpcPort),
		"--grpc-health-port", strconv.Itoa(o.healthPort),
		"--config-file", o.configFile,
	}
}

// operatorArgs10 are the operator's EPP arguments before Dynamo #8093:
// single-dash long flags, which GAIE v1.2.1's Go flag package takes.
func operatorArgs10(o operatorInput) []string {
	return []string{
		"-pool-name", o.graphName + "-pool",
		"-pool-namespace", o.namespace,
		"-pool-group", "inference.networking.k8s.io",
		"-v", "4",
		"--zap-encoder", "json",
		"-grpc-port", strconv.Itoa(o.grpcPort),
		"-grpc-health-port", strconv.Itoa(o.healthPort),
		"-config-file", o.configFile,
	}
}

// operatorEnv10 is the environment the v1.0.1 operator and example graphs
// give the EPP (see v101).
func operatorEnv10(o operatorInput) map[string]string {
	env := map[string]string{
		"USE_STREAMING":                "true",
		"RUST_LOG":                     "debug,dynamo_llm::kv_router=trace",
		"DYN_NAMESPACE":                o.dynamoNS,
		"DYN_COMPONENT":                "epp",
		"DYN_PARENT_DGD_K8S_NAME":      o.graphName,
		"DYN_PARENT_DGD_K8S_NAMESPACE": o.namespace,
		"DYN_DISCOVERY_BACKEND":        "kubernetes",
		"POD_NAME":                     o.podName,
		"POD_NAMESPACE":                o.namespace,
		"POD_UID":                      "00000000-0000-4000-8000-000000000001",
	}
	if o.graph == aggregated {
		env["DYN_DECODE_FALLBACK"] = "true"
	}
	return env
}
