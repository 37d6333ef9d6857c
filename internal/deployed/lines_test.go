package deployed

import (
	"fmt"
	"strconv"
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
	// capiVariant is the result layout the build must detect in the
	// double's header and name in its log ("routers_result 7").
	capiVariant string
	// registerCall is the C API call that books a routed request with
	// the router (add_request_with_cache_namespace or add_request).
	registerCall string
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

// bodySpec is one body field the EPP writes, by its JSON path; the
// frontend parses each as an array of u32 (the only kind so far).
type bodySpec struct {
	path []string
}

// lines are the release lines the test runs.
var lines = []line{v142, v131, v121}

// v142 is the 1.4 line (recipe v1.4.2: GAIE 7c1f1994dbff, routers C API).
var v142 = line{
	version:      "v1.4.2",
	capiVariant:  "routers_result 9",
	registerCall: "add_request_with_cache_namespace",
	// deploy/operator/internal/dynamo/component_epp.go at M (docs/compat/v1.4.2.md).
	args: func(o operatorInput) []string {
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
	},
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
	capiVariant:  "routers_result 7",
	registerCall: "add_request",
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
	poolAPI:      v142.poolAPI,
	poolSelector: v142.poolSelector,
	targetPort:   8000,
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
	capiVariant:  "routers_result 7",
	registerCall: "add_request",
	// component_epp.go at C12 is the same blob as at C13.
	args: v131.args,
	env:  v131.env,
	// epp/inference_pool.go, component_common.go and consts.go at C12: as
	// at M.
	poolAPI:      v142.poolAPI,
	poolSelector: v142.poolSelector,
	targetPort:   8000,
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
