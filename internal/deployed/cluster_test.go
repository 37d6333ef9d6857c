//go:build e2e

package deployed

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// apiServer is what the test needs of a running kube-apiserver: a
// kubeconfig for the EPP and authenticated JSON requests for the test.
type apiServer struct {
	kubeconfig string
	token      string
	do         func(ctx context.Context, method, path string, body []byte) (int, []byte, error)
}

// call sends a JSON request and fails the test unless the status is one of
// ok (200 and 201 when none are given).
func (a apiServer) call(t *testing.T, method, path string, body any, ok ...int) []byte {
	t.Helper()
	var data []byte
	if body != nil {
		var err error
		data, err = json.Marshal(body)
		require.NoError(t, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, out, err := a.do(ctx, method, path, data)
	require.NoError(t, err, "%s %s", method, path)
	if len(ok) == 0 {
		ok = []int{http.StatusOK, http.StatusCreated}
	}
	require.Contains(t, ok, code, "%s %s: %s", method, path, out)
	return out
}

// applyCRDs creates every CustomResourceDefinition of the patched tree's
// config/crd/bases (the InferencePool of that GAIE pin among them) and
// waits until each is established.
func applyCRDs(t *testing.T, api apiServer, tree string) {
	files, err := filepath.Glob(filepath.Join(tree, "config", "crd", "bases", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no CRDs in the patched tree")
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var crd map[string]any
		require.NoError(t, yaml.Unmarshal(data, &crd), f)
		api.call(t, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd,
			http.StatusCreated, http.StatusConflict)
		names = append(names, crd["metadata"].(map[string]any)["name"].(string))
	}
	for _, name := range names {
		eventually(t, 60*time.Second, "CRD "+name+" established", func() error {
			var crd struct {
				Status struct {
					Conditions []condition `json:"conditions"`
				} `json:"status"`
			}
			out := api.call(t, http.MethodGet, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, nil)
			if err := json.Unmarshal(out, &crd); err != nil {
				return err
			}
			for _, c := range crd.Status.Conditions {
				if c.Type == "Established" && c.Status == "True" {
					return nil
				}
			}
			return fmt.Errorf("conditions %v", crd.Status.Conditions)
		})
	}
}

type condition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
}

// worker is one worker pod of the graph.
type worker struct {
	name string
	role string // "decode" or "prefill"
	ip   string
}

// workerID is the id the test double gives a pod's worker: FNV-1a-64 of
// its name (testdata/capi-double/src/routers.rs).
func (w worker) id() uint64 { return fnv1a64(w.name) }

// deployGraph creates what the operator and the cluster hold for a graph:
// the namespace (with its default service account), the InferencePool the
// operator generates and the worker pods, labelled as the operator labels
// them and reported Ready with their IPs as the kubelet would.
func deployGraph(t *testing.T, api apiServer, l line, o operatorInput, workers []worker) {
	api.call(t, http.MethodPost, "/api/v1/namespaces",
		obj{"apiVersion": "v1", "kind": "Namespace", "metadata": obj{"name": o.namespace}}, http.StatusCreated, http.StatusConflict)
	api.call(t, http.MethodPost, "/api/v1/namespaces/"+o.namespace+"/serviceaccounts",
		obj{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": obj{"name": "default"}}, http.StatusCreated, http.StatusConflict)

	pool := obj{
		"apiVersion": l.poolAPI, "kind": "InferencePool",
		"metadata": obj{"name": o.graphName + "-pool", "namespace": o.namespace, "labels": obj{
			"nvidia.com/dynamo-graph-deployment-name": o.graphName,
			"nvidia.com/dynamo-component":             "Epp",
			"nvidia.com/dynamo-component-type":        "epp",
		}},
		"spec": obj{
			"targetPorts":       []obj{{"number": l.targetPort}},
			"selector":          obj{"matchLabels": l.poolSelector(o)},
			"endpointPickerRef": obj{"kind": "Service", "name": o.graphName + "-epp", "port": obj{"number": 9002}},
		},
	}
	if l.poolAPI == poolV1alpha2 {
		// The dynamo-gaie chart's v1alpha2 pool (templates/inference-pool.yaml).
		pool["spec"] = obj{
			"targetPortNumber": l.targetPort,
			"selector":         l.poolSelector(o),
			"extensionRef":     obj{"failureMode": "FailOpen", "group": "", "kind": "Service", "name": o.graphName + "-epp"},
		}
		pool["metadata"].(obj)["labels"] = nil
	}
	api.call(t, http.MethodPost, "/apis/"+l.poolAPI+"/namespaces/"+o.namespace+"/inferencepools", pool)
	if l.model {
		// The chart's InferenceModel (templates/inference-model.yaml).
		api.call(t, http.MethodPost, "/apis/"+l.poolAPI+"/namespaces/"+o.namespace+"/inferencemodels", obj{
			"apiVersion": l.poolAPI, "kind": "InferenceModel",
			"metadata": obj{"name": o.graphName + "-model", "namespace": o.namespace},
			"spec": obj{"criticality": "Critical", "modelName": model,
				"poolRef": obj{"group": "inference.networking.x-k8s.io", "kind": "InferencePool", "name": o.graphName + "-pool"}},
		})
	}

	for _, w := range workers {
		labels := map[string]string{
			"nvidia.com/dynamo-graph-deployment-name": o.graphName,
			"nvidia.com/dynamo-component":             map[string]string{"decode": "VllmDecodeWorker", "prefill": "VllmPrefillWorker", "frontend": "Frontend"}[w.role],
			// The test double's worker id for this pod, so the scorers'
			// workerIDLabel makes the router's pick the endpoint.
			"dynamo-worker-instance-id": fmt.Sprint(w.id()),
		}
		if w.role != "frontend" && (o.graph != aggregated || !l.aggregatedUnlabelled) {
			labels[l.roleLabel] = w.role
		}
		for k, v := range l.poolSelector(o) {
			labels[k] = v
		}
		pod := obj{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": obj{"name": w.name, "namespace": o.namespace, "labels": labels},
			"spec": obj{
				"automountServiceAccountToken": false,
				"containers": []obj{{"name": "main", "image": "example.invalid/dynamo/worker:test",
					"ports": []obj{{"name": "http", "containerPort": l.targetPort}}}},
			},
		}
		api.call(t, http.MethodPost, "/api/v1/namespaces/"+o.namespace+"/pods", pod)
		setPodReady(t, api, o.namespace, w)
	}
}

// setPodReady writes the status the kubelet would: Running, Ready, the IP.
func setPodReady(t *testing.T, api apiServer, namespace string, w worker) {
	path := "/api/v1/namespaces/" + namespace + "/pods/" + w.name
	var pod map[string]any
	require.NoError(t, json.Unmarshal(api.call(t, http.MethodGet, path, nil), &pod))
	now := time.Now().UTC().Format(time.RFC3339)
	pod["status"] = obj{
		"phase": "Running", "podIP": w.ip, "podIPs": []obj{{"ip": w.ip}}, "hostIP": "127.0.0.1", "startTime": now,
		"conditions": []obj{
			{"type": "Initialized", "status": "True", "lastTransitionTime": now},
			{"type": "ContainersReady", "status": "True", "lastTransitionTime": now},
			{"type": "Ready", "status": "True", "lastTransitionTime": now},
		},
	}
	api.call(t, http.MethodPut, path+"/status", pod)
}

type obj = map[string]any

// poolV1alpha2 is the InferencePool API of GAIE v0.5.
const poolV1alpha2 = "inference.networking.x-k8s.io/v1alpha2"

// eventually retries check until it returns nil or the wait ends; the
// wait only bounds how long a broken setup takes to fail.
func eventually(t *testing.T, wait time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %s: %v", what, wait, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
