//go:build e2e

package deployed

import "strconv"

// The 0.8 and 0.7 lines run on GAIE v0.5.1 and are deployed by Dynamo's
// dynamo-gaie Helm chart, read at the v0.8.0 tag, V080 = 115531a0c0bf
// (docs/compat/v0.8.0.md "Runs as deployed"); the chart is the same at
// the v0.7.0 tag, V070 = f49d6873e417, apart from licence headers.
// chart/ = deploy/inference-gateway/helm/dynamo-gaie/.

// chart05Args are chart/templates/dynamo-epp.yaml's arguments (useDynamo
// true): GAIE v0.5.1's camelCase flags, which its Go flag package parses.
func chart05Args(o operatorInput) []string {
	return []string{
		"-poolName", o.graphName + "-pool",
		"-poolNamespace", o.namespace,
		"-v", "4",
		"--zap-encoder", "json",
		"-grpcPort", strconv.Itoa(o.grpcPort),
		"-grpcHealthPort", strconv.Itoa(o.healthPort),
		"-configFile", o.configFile,
	}
}

// chart05Env is chart/templates/dynamo-epp.yaml's environment with
// chart/values.yaml (platform release dynamo-platform in namespace
// my-model, kvBlockSize 16, no extraEnv).
func chart05Env(o operatorInput) map[string]string {
	return map[string]string{
		"ETCD_ENDPOINTS":             "dynamo-platform-etcd.my-model:2379",
		"NATS_SERVER":                "nats://dynamo-platform-nats.my-model:4222",
		"DYNAMO_NAMESPACE":           o.dynamoNS,
		"DYNAMO_KV_BLOCK_SIZE":       "16",
		"DYNAMO_ROUTER_REPLICA_SYNC": "true",
		"USE_STREAMING":              "true",
	}
}

// chart05PoolSelector is chart/templates/inference-pool.yaml's selector:
// the graph's Frontend pods.
func chart05PoolSelector(o operatorInput) map[string]string {
	return map[string]string{
		"nvidia.com/dynamo-component": "Frontend",
		"nvidia.com/dynamo-namespace": o.dynamoNS,
	}
}

// chart05Config is chart/epp-config-dynamo.yaml (comments left out): no
// dynamo-cleanup plugin.
const chart05Config = `apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: single-profile-handler
- name: picker
  type: max-score-picker
- name: dyn-pre
  type: dynamo-inject-workerid
  parameters: {}
- name: dyn-kv
  type: kv-aware-scorer
  parameters:
    frontendURL: http://127.0.0.1:8000/v1/chat/completions
    timeoutMS: 10000
schedulingProfiles:
- name: default
  plugins:
  - pluginRef: dyn-kv
    weight: 1
  - pluginRef: picker
`

// gaie051CancelLeak is why a request cancelled before its response
// headers stays registered on GAIE v0.5.1: PostResponse plugins run from
// the response headers only, and the stream's end calls no plugin.
const gaie051CancelLeak = "GAIE v0.5.1 runs PostResponse plugins (dynamo-cleanup) from the response headers only " +
	"and ends the stream of a request cancelled before them without calling any plugin, so the request " +
	"registered in Score is never freed (docs/compat/v0.8.0.md, \"Runs as deployed\")"

// staleArgs05 are flags a later Dynamo deployment writes (the v0.9 chart's
// and the operator's kebab-case names), which GAIE v0.5.1 refuses.
var staleArgs05 = operatorArgs10

const staleArgs05From = "the kebab-case flags of Dynamo v0.9's chart"

// pipeline080Calls are the calls Dynamo v0.8.0's EPP makes: the
// pipeline08 generation without dynamo_router_mark_prefill_complete, which
// patch:plugin.go declares and never calls (nor does this project).
var pipeline080Calls = func() capiCalls {
	c := pipeline08Calls
	c.markPrefill = ""
	return c
}()

// v080 is the 0.8 line (recipe v0.8.0, and v0.8.1 which extends it with
// another C API pin: with the test double as the library both build the
// same tree, so this row stands for both).
var v080 = line{
	version:      "v0.8.0",
	capiFeatures: "pipeline08",
	capi:         pipeline080Calls,
	args:         chart05Args,
	env:          chart05Env,
	metricsFlag:  "-metricsPort",
	// chart/templates/inference-pool.yaml and inference-model.yaml at V080.
	poolAPI:       poolV1alpha2,
	poolSelector:  chart05PoolSelector,
	model:         true,
	targetPort:    8000,
	frontendPool:  true,
	scoresTie:     true,
	staleArgs:     staleArgs05,
	staleArgsFrom: staleArgs05From,
	configs:       map[graph]string{aggregated: chart05Config, disaggregated: chart05Config},
	chartLeak: "chart/epp-config-dynamo.yaml at V080 configures no dynamo-cleanup plugin, so the EPP the chart " +
		"deploys never calls dynamo_router_free_request and every request stays registered in the router",
	seriesConfig:     "pkg/epp/scheduling/plugins/dynamo/config/epp-config-dynamo.yaml",
	cancelLeak:       gaie051CancelLeak,
	cancelLeakPhases: []string{"request"},
	note: "v0.8.1 extends this recipe with another C API pin only; linked with the test double both build " +
		"this tree, so this row stands for v0.8.1 too",
	// patch:plugin.go at V080; the frontend parses the ids as u64.
	headers: []headerSpec{
		{name: "x-worker-instance-id", kind: u64, graphs: []graph{aggregated, disaggregated}, worker: "decode"},
		{name: "x-prefiller-host-port", kind: u64, graphs: []graph{disaggregated}, worker: "prefill"},
	},
	// A client's x-worker-instance-id is overwritten. Its
	// x-prefiller-host-port on an aggregated request is dropped from the
	// EPP's header map only: GAIE v0.5.1's answer sets headers and removes
	// none, so Envoy forwards the client's copy. The frontend at V080 reads
	// neither header (it routes by the body's nvext fields), so that copy
	// is not a routing input and is not listed here (docs/compat/v0.8.0.md
	// "Runs as deployed").
	clientHeaders: map[string]string{"x-worker-instance-id": "42"},
	// patch:workerid at V080; lib/llm/src/protocols/openai/nvext.rs at V080
	// parses backend_instance_id, prefill_worker_id and decode_worker_id
	// as Option<u64> and token_data as Option<Vec<u32>>.
	bodyFields: []bodySpec{
		{path: []string{"nvext", "backend_instance_id"}, kind: u64, graphs: []graph{aggregated}, worker: "decode"},
		{path: []string{"nvext", "decode_worker_id"}, kind: u64, graphs: []graph{disaggregated}, worker: "decode"},
		{path: []string{"nvext", "prefill_worker_id"}, kind: u64, graphs: []graph{disaggregated}, worker: "prefill"},
		{path: []string{"nvext", "token_data"}},
	},
}

// pipeline07Calls are the pipeline generation's calls with Dynamo v0.7.0's
// signatures: no router bookkeeping at all.
var pipeline07Calls = capiCalls{
	create: "dynamo_create_worker_selection_pipeline", destroy: "dynamo_destroy_worker_selection_pipeline",
	routeDecode: "dynamo_query_worker_selection_and_annotate",
	freeResult:  "dynamo_free_worker_selection_result",
	workerIDs:   true,
}

// v070 is the 0.7 line (recipe v0.7.0, and v0.7.1 which extends it with
// another C API pin). Its query returns one worker: aggregated only.
var v070 = line{
	version:       "v0.7.0",
	capi:          pipeline07Calls,
	graphs:        []graph{aggregated},
	args:          chart05Args,
	env:           chart05Env,
	metricsFlag:   "-metricsPort",
	poolAPI:       v080.poolAPI,
	poolSelector:  chart05PoolSelector,
	model:         true,
	targetPort:    8000,
	frontendPool:  true,
	scoresTie:     true,
	staleArgs:     staleArgs05,
	staleArgsFrom: staleArgs05From,
	configs:       map[graph]string{aggregated: chart05Config},
	note: "v0.7.1 extends this recipe with another C API pin only; linked with the test double both build " +
		"this tree, so this row stands for v0.7.1 too. Not checked: the body fields nvext.backend_instance_id " +
		"and nvext.token_data, which this line writes through a BBR process that the chart at V070 does not " +
		"deploy; the row checks the headers the EPP hands BBR instead",
	// BBR would take a client's copies of these for the EPP's: each must
	// be overwritten with the router's answer.
	clientHeaders: map[string]string{
		"x-worker-instance-id":                  "42",
		"x-epp-inject-nvext-worker-instance-id": "42",
		"x-epp-inject-nvext-token-data":         "WzFd",
	},
	// dyn2:plugin.go and dyn2:workerid at V070 (docs/compat/v0.7.0.md
	// "Headers and body fields").
	headers: []headerSpec{
		{name: "x-worker-instance-id", kind: u64, graphs: []graph{aggregated}, worker: "decode"},
		{name: "x-epp-inject-nvext-worker-instance-id", kind: u64, graphs: []graph{aggregated}, worker: "decode"},
		{name: "x-epp-inject-nvext-token-data", kind: b64u32s, graphs: []graph{aggregated}},
	},
}
