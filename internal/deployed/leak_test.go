//go:build e2e

package deployed

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runChartLeak runs graph g with the config the line's deployment ships,
// which frees no request (l.chartLeak): one request goes through as
// deployed, with the headers and body the frontend reads, and stays
// registered in the router until the EPP exits. The leak is Dynamo's: the
// test asserts it happens, so it notices when it stops happening.
func runChartLeak(t *testing.T, api apiServer, l line, binary string, g graph) {
	t.Logf("as deployed, a known Dynamo defect: %s", l.chartLeak)
	d := deploy(t, api, l, g, string(g)[:3]+"-chart")
	decode, prefill := int64(1), int64(-1)
	if g == disaggregated {
		prefill = 2
	}
	p := program{DecodeWorker: &decode, PrefillWorker: &prefill}
	d.double.set(t, p)
	e := startAndWait(t, api, l, binary, d)
	ext := dialEnvoy(t, e.grpcPort)
	ex := ext.send(t, request{headers: envoyHeaders("req-chart-" + string(g)), body: chatRequest(model, "as deployed"),
		chunk: 16, responseChunks: sseChunks(model)})
	require.Nil(t, ex.immediate, "the EPP refused the request")
	assert.NoError(t, checkExchange(l, g, d, p, ex))

	// Once the EPP has exited nothing can free the request any more: the
	// router held it when it was destroyed.
	require.NoError(t, e.terminate(t, 30*time.Second), "exit status after SIGTERM")
	s := d.double.read(t)
	t.Logf("C API double after exit: calls %v, destroyed %v", s.Calls, s.Destroyed)
	assert.NoError(t, checkNoViolations(s))
	assert.Equal(t, 1, s.Calls[l.capi.register], "the request was registered")
	assert.Equal(t, 0, s.Calls[l.capi.free], "no plugin of the chart's config frees a request")
	assert.Equal(t, []destroyedHandle{{Requests: 1}}, s.Destroyed,
		"the chart's config leaves the request registered until the router is destroyed")
}

// withSeriesConfig returns l with every graph's config replaced by the
// config this project's series ships in the patched tree.
func withSeriesConfig(t *testing.T, l line, tree string) line {
	data, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(l.seriesConfig)))
	require.NoError(t, err, "the series' config")
	l.configs = map[graph]string{}
	for _, g := range []graph{aggregated, disaggregated} {
		l.configs[g] = string(data)
	}
	t.Logf("the other checks run with the config the series ships, %s", l.seriesConfig)
	return l
}
