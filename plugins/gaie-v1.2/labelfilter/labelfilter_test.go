package labelfilter

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

const roleLabel = "nvidia.com/dynamo-sub-component-type"

func pod(name string, labels map[string]string) schedtypes.Pod {
	return &schedtypes.PodMetrics{Pod: &backend.Pod{NamespacedName: k8stypes.NamespacedName{Name: name}, Labels: labels}}
}

func names(pods []schedtypes.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.GetPod().NamespacedName.Name)
	}
	return out
}

func TestFilterKeepsMatchingPodsInOrder(t *testing.T) {
	pods := []schedtypes.Pod{
		pod("p1", map[string]string{roleLabel: "prefill"}),
		pod("d1", map[string]string{roleLabel: "decode"}),
		pod("none", nil),
		nil,
		&schedtypes.PodMetrics{},
		pod("d2", map[string]string{roleLabel: "decode"}),
	}
	for _, tc := range []struct {
		params string
		want   []string
	}{
		{`{"label":"` + roleLabel + `","validValues":["decode"]}`, []string{"d1", "d2"}},
		{`{"label":"` + roleLabel + `","validValues":["decode"],"allowsNoLabel":true}`, []string{"d1", "none", "d2"}},
		{`{"label":"` + roleLabel + `","validValues":["prefill","decode"],"unknown":1}`, []string{"p1", "d1", "d2"}},
	} {
		p, err := Factory("f", json.RawMessage(tc.params), nil)
		require.NoError(t, err, tc.params)
		assert.Equal(t, Type, p.TypedName().Type)
		assert.Equal(t, "f", p.TypedName().Name)
		got := p.(*Filter).Filter(context.Background(), nil, nil, pods)
		assert.Equal(t, tc.want, names(got), tc.params)
	}
}

func TestFactoryRefusesWhatDynamoRefuses(t *testing.T) {
	for _, raw := range []json.RawMessage{
		nil,
		json.RawMessage(`{"validValues":["decode"]}`),
		json.RawMessage(`{"label":"x"}`),
		json.RawMessage(`{"label":"x","validValues":[]}`),
		json.RawMessage(`[1]`),
	} {
		_, err := Factory("f", raw, nil)
		assert.Error(t, err, string(raw))
	}
}
