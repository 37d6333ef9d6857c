package labelfilter_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	fwkdl "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/datalayer"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/labelfilter"
)

const role = "nvidia.com/dynamo-sub-component-type"

func ep(name string, labels map[string]string) fwksched.Endpoint {
	return fwksched.NewEndpoint(&fwkdl.EndpointMetadata{PodName: name, Labels: labels}, fwkdl.NewMetrics(), nil)
}

func podNames(eps []fwksched.Endpoint) []string {
	var out []string
	for _, e := range eps {
		out = append(out, e.GetMetadata().PodName)
	}
	return out
}

func TestFilterKeepsMatchingRole(t *testing.T) {
	eps := []fwksched.Endpoint{
		ep("p0", map[string]string{role: "prefill"}),
		ep("d0", map[string]string{role: "decode"}),
		ep("x", nil),
		ep("p1", map[string]string{role: "prefill"}),
	}
	p, err := labelfilter.Factory("prefill-pods", []byte(`{"label":"`+role+`","values":["prefill"]}`), nil)
	require.NoError(t, err)
	f := p.(*labelfilter.Filter)
	assert.Equal(t, "prefill-pods", f.TypedName().Name)
	assert.Equal(t, []string{"p0", "p1"}, podNames(f.Filter(context.Background(), nil, nil, eps)))

	keep, err := labelfilter.New("", labelfilter.Params{Label: role, Values: []string{"decode"}, KeepUnlabelled: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"d0", "x"}, podNames(keep.Filter(context.Background(), nil, nil, eps)))
}

func TestFilterNeedsLabelAndValues(t *testing.T) {
	_, err := labelfilter.Factory("f", []byte(`{"label":"`+role+`"}`), nil)
	require.ErrorContains(t, err, "label and values are required")
	_, err = labelfilter.Factory("f", []byte(`{`), nil)
	require.Error(t, err)
}
