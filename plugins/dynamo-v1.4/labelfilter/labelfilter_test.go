package labelfilter_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	fwkdl "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/datalayer"
	fwkplugin "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/plugin"
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
		nil,
	}
	// The parameters of Dynamo's prefill filter; allowsNoLabel defaults to false.
	p, err := labelfilter.Factory("prefill-filter", []byte(`{"label":"`+role+`","validValues":["prefill"]}`), nil)
	require.NoError(t, err)
	f := p.(*labelfilter.Filter)
	assert.Equal(t, fwkplugin.TypedName{Type: "label-filter", Name: "prefill-filter"}, f.TypedName())
	assert.Equal(t, []string{"p0", "p1"}, podNames(f.Filter(context.Background(), nil, nil, eps)))

	keep, err := labelfilter.Factory("decode-filter", []byte(`{"label":"`+role+`","validValues":["decode"],"allowsNoLabel":true,"unknown":1}`), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"d0", "x"}, podNames(keep.(*labelfilter.Filter).Filter(context.Background(), nil, nil, eps)))
}

func TestRegisterKeepsTheAlias(t *testing.T) {
	labelfilter.Register()
	for _, typ := range []string{"label-filter", "dynamo-label-filter"} {
		factory, ok := fwkplugin.Registry[typ]
		require.True(t, ok, typ)
		p, err := factory("f", []byte(`{"label":"`+role+`","validValues":["decode"]}`), nil)
		require.NoError(t, err)
		assert.Equal(t, typ, p.TypedName().Type)
	}
}

func TestFilterNeedsLabelAndValues(t *testing.T) {
	_, err := labelfilter.Factory("f", nil, nil)
	require.ErrorContains(t, err, "'label' and 'validValues' are required")
	_, err = labelfilter.Factory("f", []byte(`{"validValues":["decode"]}`), nil)
	require.ErrorContains(t, err, "'label' must not be empty")
	_, err = labelfilter.Factory("f", []byte(`{"label":"`+role+`"}`), nil)
	require.ErrorContains(t, err, "'validValues' must contain at least one value")
	_, err = labelfilter.Factory("f", []byte(`{"label":"`+role+`","values":["decode"]}`), nil)
	require.ErrorContains(t, err, `now Dynamo's "validValues" and "allowsNoLabel"`)
	_, err = labelfilter.Factory("f", []byte(`{`), nil)
	require.Error(t, err)
}
