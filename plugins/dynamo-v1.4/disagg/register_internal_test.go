package disagg

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"k8s.io/apimachinery/pkg/types"
	fwkplugin "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/plugin"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
	rt "github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter/kvroutertest"
)

func TestFactoriesShareOneRouterClosedWithTheHandle(t *testing.T) {
	env := map[string]string{kvrouter.EnvNamespace: "dynamo", "DYN_COMPONENT": "epp", kvrouter.EnvEnforceDisagg: "true", EnvActiveRequestExpiry: "1200"}
	fake := &rt.Fake{}
	opened := 0
	var gotCfg kvrouter.Config
	shared := &sharedRuntime{
		open:   func(c kvrouter.Config) (kvrouter.Router, error) { opened++; gotCfg = c; return fake, nil },
		getenv: func(k string) string { return env[k] },
	}
	ctx, cancel := context.WithCancel(context.Background())
	handle := fwkplugin.NewEppHandle(ctx, func() []types.NamespacedName { return nil })

	p, err := shared.prefillFactory("pre", []byte(`{"maxConcurrentReservations":2,"admissionTimeoutMilliseconds":5}`), handle)
	require.NoError(t, err)
	ps := p.(*PrefillScorer)
	assert.Equal(t, fwkplugin.TypedName{Type: PrefillScorerType, Name: "pre"}, ps.TypedName())
	assert.Equal(t, 2, cap(ps.slots))
	d, err := shared.decodeFactory("dec", nil, handle)
	require.NoError(t, err)
	assert.Same(t, ps.rt, d.(*DecodeScorer).rt)
	assert.Equal(t, 1, opened)
	assert.Equal(t, kvrouter.Config{Namespace: "dynamo", Component: "backend"}, gotCfg)

	cancel()
	fake.WaitFor(t, rt.OpClose, 1)
}

// The EPP's main closes the router after the runner returns; with the
// handle's context ended too, the router is still closed exactly once, and
// the close main makes returns only when it is done.
func TestCloseRouterClosesOnceAndWaits(t *testing.T) {
	fake := &rt.Fake{}
	shared := &sharedRuntime{
		open:   func(kvrouter.Config) (kvrouter.Router, error) { return fake, nil },
		getenv: func(string) string { return "" },
	}
	shared.close() // nothing opened yet: nothing to close
	assert.Zero(t, fake.Count(rt.OpClose))

	ctx, cancel := context.WithCancel(context.Background())
	_, err := shared.decodeFactory("dec", nil, fwkplugin.NewEppHandle(ctx, func() []types.NamespacedName { return nil }))
	require.NoError(t, err)
	cancel()
	shared.close()
	assert.Equal(t, 1, fake.Count(rt.OpClose), "closed by the time main's close returns")
	shared.close()
	time.Sleep(10 * time.Millisecond) // let the handle's goroutine run if it has not
	assert.Equal(t, 1, fake.Count(rt.OpClose), "closed once")
}

func TestFactoriesReadParametersAsDynamoDoes(t *testing.T) {
	shared := &sharedRuntime{
		open:   func(kvrouter.Config) (kvrouter.Router, error) { return nil, errors.New("create_routers: code 3") },
		getenv: func(string) string { return "" },
	}
	// Keys Dynamo's EPP does not know either are ignored, not refused.
	_, err := shared.prefillFactory("pre", []byte(`{"maxConcurrentReservation":2}`), nil)
	require.ErrorContains(t, err, "create_routers: code 3")
	_, err = shared.prefillFactory("pre", []byte(`{"maxConcurrentReservations":"two"}`), nil)
	require.ErrorContains(t, err, `dyn-prefill-scorer "pre": parameters`)
	_, err = shared.prefillFactory("pre", []byte(`{"reservationTimeoutSeconds":-1}`), nil)
	require.ErrorContains(t, err, "must not be negative")
	_, err = shared.decodeFactory("dec", nil, nil)
	require.ErrorContains(t, err, `dyn-decode-scorer "dec": create_routers: code 3`)
}

func TestRouterRequestExpiryFollowsTheRouter(t *testing.T) {
	for v, want := range map[string]time.Duration{
		"": DefaultActiveRequestExpiry, "1200": 20 * time.Minute,
		"soon": DefaultActiveRequestExpiry, "0": DefaultActiveRequestExpiry, "-5": DefaultActiveRequestExpiry,
	} {
		got, warning := routerRequestExpiry(func(string) string { return v })
		assert.Equal(t, want, got, "%q", v)
		assert.Equal(t, want != DefaultActiveRequestExpiry || v == "", warning == "", "%q: %s", v, warning)
	}
	got, _ := routerRequestExpiry(func(string) string { return "18446744073709551615" })
	assert.Positive(t, got)
}
