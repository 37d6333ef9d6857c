package disagg

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"k8s.io/apimachinery/pkg/types"
	fwkplugin "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/plugin"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
	rt "github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter/kvroutertest"
)

func TestFactoriesShareOneRouterClosedWithTheHandle(t *testing.T) {
	env := map[string]string{kvrouter.EnvNamespace: "dynamo", EnvActiveRequestExpiry: "1200"}
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
	assert.Equal(t, kvrouter.Config{Namespace: "dynamo"}, gotCfg)

	cancel()
	fake.WaitFor(t, rt.OpClose, 1)
}

func TestFactoryErrorsNameTheFix(t *testing.T) {
	env := map[string]string{}
	shared := &sharedRuntime{
		open:   func(kvrouter.Config) (kvrouter.Router, error) { return nil, errors.New("create_routers: code 3") },
		getenv: func(k string) string { return env[k] },
	}
	_, err := shared.decodeFactory("dec", nil, nil)
	require.ErrorContains(t, err, "DYN_NAMESPACE is not set")

	env[kvrouter.EnvNamespace] = "dynamo"
	env[EnvActiveRequestExpiry] = "soon"
	_, err = shared.decodeFactory("dec", nil, nil)
	require.ErrorContains(t, err, `DYN_ROUTER_ACTIVE_REQUEST_EXPIRY_SECS="soon"`)

	delete(env, EnvActiveRequestExpiry)
	_, err = shared.prefillFactory("pre", []byte(`{"maxConcurrentReservation":2}`), nil)
	require.ErrorContains(t, err, `unknown field "maxConcurrentReservation"`)
	_, err = shared.prefillFactory("pre", []byte(`{"reservationTimeoutSeconds":-1}`), nil)
	require.ErrorContains(t, err, "must not be negative")
	_, err = shared.prefillFactory("pre", nil, nil)
	require.ErrorContains(t, err, "create_routers: code 3")
}
