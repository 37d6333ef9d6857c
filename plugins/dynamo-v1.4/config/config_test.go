// Package config holds the example EndpointPickerConfig of the Dynamo
// plugins; its test loads it with GAIE's config loader and builds every
// plugin it names through the plugin registry.
package config_test

import (
	"context"
	"os"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/config/loader"
	fwkplugin "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/plugin"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/plugins/scheduling/picker/maxscore"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/disagg"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
	rt "github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter/kvroutertest"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/labelfilter"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/register"
)

func TestExampleConfigBuildsEveryPlugin(t *testing.T) {
	t.Setenv(kvrouter.EnvNamespace, "dynamo")
	fake := &rt.Fake{}
	register.All(func(kvrouter.Config) (kvrouter.Router, error) { return fake, nil })
	fwkplugin.Register(maxscore.MaxScorePickerType, maxscore.MaxScorePickerFactory)

	data, err := os.ReadFile("epp-config-dynamo.yaml")
	require.NoError(t, err)
	raw, _, err := loader.LoadRawConfig(data, logr.Discard())
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	handle := fwkplugin.NewEppHandle(ctx, func() []types.NamespacedName { return nil })
	seen := map[string]bool{}
	for _, spec := range raw.Plugins {
		factory, ok := fwkplugin.Registry[spec.Type]
		require.True(t, ok, "plugin type %s is not registered", spec.Type)
		p, err := factory(spec.Name, spec.Parameters, handle)
		require.NoError(t, err, spec.Type)
		handle.AddPlugin(spec.Name, p)
		seen[spec.Type] = true
	}
	assert.True(t, seen[disagg.ProfileHandlerType] && seen[disagg.PrefillScorerType] && seen[disagg.DecodeScorerType] && seen[labelfilter.Type])
	_, isHandler := handle.Plugin(disagg.ProfileHandlerType).(fwksched.ProfileHandler)
	assert.True(t, isHandler)
	for _, prof := range raw.SchedulingProfiles {
		for _, ref := range prof.Plugins {
			assert.NotNil(t, handle.Plugin(ref.PluginRef), "profile %s refers to %s", prof.Name, ref.PluginRef)
		}
	}
	cancel() // the shared router closes with the handle
	fake.WaitFor(t, rt.OpClose, 1)
}
