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
var lines = []line{v142}

// v142 is the 1.4 line (recipe v1.4.2: GAIE 7c1f1994dbff, routers C API).
var v142 = line{
	version: "v1.4.2",
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
