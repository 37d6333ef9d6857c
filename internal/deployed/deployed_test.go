//go:build e2e

package deployed

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
)

const model = "Qwen/Qwen3-0.6B"

// TestDeployedEPP runs, for every release line, the EPP taken from the
// line's image as Dynamo's operator deploys it, for an aggregated and a
// disaggregated graph, and then shows the harness fails on a broken start.
func TestDeployedEPP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the EPP image of every line: minutes on two cores")
	}
	testenv.Tool(t, "cargo", "the C API test double is built with cargo")
	api := startAPIServer(t)
	for _, l := range lines {
		t.Run(l.version, func(t *testing.T) {
			dir, err := os.MkdirTemp("", "eppd") // short: buildkitd's socket lives here
			require.NoError(t, err)
			t.Cleanup(func() { os.RemoveAll(dir) })
			start := time.Now()
			built := buildImage(t, dir, l)
			t.Logf("phase image (build + extract): %s", time.Since(start).Round(time.Second))
			start = time.Now()
			applyCRDs(t, api, built.tree)
			t.Logf("phase CRDs: %s", time.Since(start).Round(time.Second))
			if l.note != "" {
				t.Logf("note: %s", l.note)
			}
			graphs := l.graphs
			if len(graphs) == 0 {
				graphs = []graph{aggregated, disaggregated}
			}
			if l.chartLeak != "" {
				// As deployed, the request leaks; the other checks run
				// with the config this project's series ships.
				for _, g := range graphs {
					t.Run(string(g)+"-chart-config", func(t *testing.T) { runChartLeak(t, api, l, built.binary, g) })
				}
				l = withSeriesConfig(t, l, built.tree)
			}
			for _, g := range graphs {
				t.Run(string(g), func(t *testing.T) { runGraph(t, api, l, built.binary, g) })
			}
			t.Run("harness-catches-breakage", func(t *testing.T) { harnessCatchesBreakage(t, api, l, built.binary) })
		})
	}
}

// deployment is one graph deployed for a test: its operator input, its
// workers and the double's files.
type deployment struct {
	o       operatorInput
	workers []worker
	double  double
}

func (d deployment) pods(role string) []worker {
	var out []worker
	for _, w := range d.workers {
		if w.role == role {
			out = append(out, w)
		}
	}
	return out
}

// deploy creates graph g of line l in its own namespace.
func deploy(t *testing.T, api apiServer, l line, g graph, name string) deployment {
	dir := t.TempDir()
	ns := strings.NewReplacer(".", "", "/", "-").Replace(l.version) + "-" + name
	d := deployment{
		o: operatorInput{
			graph: g, graphName: "qwen", namespace: ns, grpcPort: freePort(t), healthPort: freePort(t),
			configFile: writeConfig(t, dir, l.configs[g]), podName: "qwen-epp-0", dynamoNS: ns + "-qwen",
		},
		double: newDouble(dir),
	}
	d.workers = []worker{{name: "qwen-decode-0", role: "decode", ip: "10.0.0.10"}, {name: "qwen-decode-1", role: "decode", ip: "10.0.0.11"}}
	if l.frontendPool {
		// The pool holds the frontends; the workers are known to the
		// router through Dynamo's discovery only.
		d.workers = []worker{{name: "qwen-frontend-0", role: "frontend", ip: "10.0.2.10"}, {name: "qwen-frontend-1", role: "frontend", ip: "10.0.2.11"}}
	} else if g == disaggregated {
		d.workers = append(d.workers, worker{name: "qwen-prefill-0", role: "prefill", ip: "10.0.1.10"},
			worker{name: "qwen-prefill-1", role: "prefill", ip: "10.0.1.11"})
	}
	deployGraph(t, api, l, d.o, d.workers)
	return d
}

// startAndWait starts the EPP for d and waits until it serves and has
// every worker pod in its datastore (its per-pod metrics name them).
func startAndWait(t *testing.T, api apiServer, l line, binary string, d deployment, extraArgs ...string) *runningEPP {
	start := time.Now()
	e := startEPP(t, binary, l, d.o, api, d.double.env(), extraArgs...)
	require.NoError(t, e.waitServing(90*time.Second))
	eventually(t, 60*time.Second, "every worker pod in the EPP's datastore", func() error {
		m, err := e.metrics(api.token)
		if err != nil {
			return err
		}
		if !strings.Contains(m, "inference_extension_info") {
			return errors.New("no inference_extension_info metric")
		}
		for _, w := range d.workers {
			if !strings.Contains(m, `model_server_pod="`+w.name) {
				return fmt.Errorf("pod %s not in the metrics", w.name)
			}
		}
		return nil
	})
	t.Logf("phase EPP start to serving with every pod: %s", time.Since(start).Round(time.Millisecond))
	return e
}

// runGraph deploys graph g, starts the EPP and checks routing, headers,
// body, bookkeeping and shutdown.
func runGraph(t *testing.T, api apiServer, l line, binary string, g graph) {
	d := deploy(t, api, l, g, string(g)[:3])
	decode := d.pods("decode")
	var prefill []worker
	if g == disaggregated {
		prefill = d.pods("prefill")
	}
	prog := func(dec int) program {
		if l.capi.workerIDs {
			// The pipeline's workers are ids 0..3: decode 0 or 1, prefill
			// 2 or 3 when disaggregated, -1 (none) when not.
			decode, prefill := int64(dec), int64(-1)
			if g == disaggregated {
				prefill = int64(3 - dec)
			}
			return program{DecodeWorker: &decode, PrefillWorker: &prefill}
		}
		p := program{DecodePod: decode[dec].name}
		if len(prefill) > 0 {
			p.PrefillPod = prefill[1-dec].name
		}
		return p
	}
	d.double.set(t, prog(1))
	e := startAndWait(t, api, l, binary, d)
	ext := dialEnvoy(t, e.grpcPort)

	// Each decode pod in turn: the endpoint follows the router's pick.
	for _, dec := range []int{1, 0} {
		p := prog(dec)
		d.double.set(t, p)
		start := time.Now()
		var during doubleState
		ex := ext.send(t, request{
			headers: envoyHeaders(fmt.Sprintf("req-%s-%d", g, dec)),
			body:    chatRequest(model, "hello from "+string(g)), chunk: 16,
			responseChunks: sseChunks(model),
			inFlight: func() {
				if l.capi.register == "" {
					during = d.double.read(t)
					return
				}
				during = d.double.registered(t, "while the response is outstanding")
			},
		})
		t.Logf("phase one request through ext-proc: %s", time.Since(start).Round(time.Millisecond))
		require.Nil(t, ex.immediate, "the EPP refused the request")
		t.Logf("EPP set headers %v; body %s", ex.setHeaders, ex.body)
		assert.NoError(t, checkExchange(l, g, d, p, ex))
		assert.Equal(t, len(sseChunks(model)), ex.responseChunks)
		assert.NoError(t, checkInFlight(during, l.capi.register != ""))
		s := d.double.settled(t, "after the stream ended")
		assert.NoError(t, checkBookkeeping(s, l, g))
	}

	// A client that sends its own routing headers on an aggregated
	// request: the answer removes or overwrites each, or Envoy forwards
	// the client's values to the frontend, which routes by them.
	if g == aggregated {
		p := prog(0)
		d.double.set(t, p)
		hs := envoyHeaders("req-client-routing")
		maps.Copy(hs, l.clientHeaders)
		ex := ext.send(t, request{headers: hs, body: chatRequest(model, "client routing"), responseChunks: sseChunks(model)})
		require.Nil(t, ex.immediate, "the EPP refused the request")
		t.Logf("EPP set headers %v, removed %v", ex.setHeaders, ex.removeHeaders)
		assert.NoError(t, checkExchange(l, g, d, p, ex))
		assert.NoError(t, checkClientHeaders(l.clientHeaders, ex))
		d.double.settled(t, "after the client-routed request")
	}

	// A client that goes away mid-stream: after the EPP answered the
	// request, and after the response headers.
	phases := []string{"request", "response-headers"}
	if l.cancelLeak != "" {
		t.Logf("not checked, a known defect: a client that goes away mid-stream: %s", l.cancelLeak)
		phases = nil
	}
	if l.cancelLeak != "" && len(l.cancelLeakPhases) > 0 {
		phases = slices.DeleteFunc([]string{"request", "response-headers"}, func(p string) bool {
			return slices.Contains(l.cancelLeakPhases, p)
		})
		t.Logf("checked only after %v", phases)
	}
	for _, phase := range phases {
		ext.send(t, request{headers: envoyHeaders("req-cancel-" + phase), body: chatRequest(model, "cancelled"),
			responseChunks: sseChunks(model), cancelAfter: phase})
		s := d.double.settled(t, "after the client cancelled at "+phase)
		assert.NoError(t, checkNoViolations(s))
	}
	before := d.double.read(t)

	// SIGTERM as the kubelet sends it: a clean exit, nothing outstanding.
	start := time.Now()
	require.NoError(t, e.terminate(t, 30*time.Second), "exit status after SIGTERM")
	t.Logf("phase SIGTERM to exit: %s", time.Since(start).Round(time.Millisecond))
	s := d.double.read(t)
	t.Logf("C API double after exit: calls %v, destroyed %v", s.Calls, s.Destroyed)
	assert.NoError(t, checkNoViolations(s))
	assert.NoError(t, checkNothingOutstanding(s))
	assert.Equal(t, before.Calls[l.capi.create], s.Calls[l.capi.create], "no router was created at shutdown")
	assert.Equal(t, 1, s.Calls[l.capi.destroy], "the router is destroyed once at shutdown")
	assert.Equal(t, 0, s.LiveHandles)
	for _, h := range s.Destroyed {
		assert.Equal(t, destroyedHandle{}, h, "the router held nothing when it was destroyed")
	}
}

// harnessCatchesBreakage shows the checks fail when the deployment is
// broken: the operator's probe port does not answer when the EPP is
// started on another health port, an expected header the EPP does not
// write is reported, and a booking the router could not free is found.
func harnessCatchesBreakage(t *testing.T, api apiServer, l line, binary string) {
	d := deploy(t, api, l, aggregated, "broken")
	var p program
	if l.capi.workerIDs {
		decode, prefill := int64(0), int64(-1)
		p = program{DecodeWorker: &decode, PrefillWorker: &prefill}
	} else {
		p = program{DecodePod: d.pods("decode")[0].name}
	}
	d.double.set(t, p)

	// Flags an older Dynamo deployment wrote: this GAIE's flag parser
	// refuses them and the EPP exits.
	old := l
	old.args = l.staleArgs
	e := startEPP(t, binary, old, d.o, api, d.double.env())
	assert.ErrorContains(t, e.waitServing(90*time.Second), "exited before serving", l.staleArgsFrom+" must fail the start")

	// A health port other than the one the operator probes.
	operatorHealthPort := d.o.healthPort
	moved := d.o
	moved.healthPort = freePort(t)
	e = startAndWait(t, api, l, binary, deployment{o: moved, workers: d.workers, double: d.double})
	assert.Error(t, probeOnce(operatorHealthPort), "a wrong --grpc-health-port must fail the operator's probe")
	assert.NoError(t, probeOnce(moved.healthPort))

	ext := dialEnvoy(t, e.grpcPort)
	// The client also sends a header no plugin owns: GAIE passes it on.
	hs := envoyHeaders("req-broken")
	hs["x-dynamo-not-removed"] = "1"
	ex := ext.send(t, request{headers: hs, body: chatRequest(model, "hi"), responseChunks: sseChunks(model)})
	require.NoError(t, checkExchange(l, aggregated, d, p, ex))
	strict := l
	strict.headers = append(slices.Clone(l.headers), headerSpec{name: "x-dynamo-not-written", kind: u64, graphs: []graph{aggregated}})
	assert.ErrorContains(t, checkExchange(strict, aggregated, d, p, ex), "x-dynamo-not-written")
	// Checked as a routing header, it is reported as passed on.
	assert.ErrorContains(t, checkClientHeaders(map[string]string{"x-dynamo-not-removed": "1"}, ex), "x-dynamo-not-removed")

	if l.capi.free == "" {
		t.Logf("not checked: a booking the router could not free (the line's C API has no bookkeeping)")
		return
	}
	// The router refuses to free: the request stays booked in the double.
	p.Errors = map[string]uint32{l.capi.free: 4}
	d.double.set(t, p)
	ext.send(t, request{headers: envoyHeaders("req-leak"), body: chatRequest(model, "leak"), responseChunks: sseChunks(model)})
	eventually(t, 20*time.Second, "the EPP tried to free the request", func() error {
		if s := d.double.read(t); s.InjectedErrors == 0 {
			return errors.New("no free_request refused yet")
		}
		return nil
	})
	assert.ErrorContains(t, checkNothingOutstanding(d.double.read(t)), "outstanding")
}

// envoyHeaders are the request headers Envoy passes to ext-proc for a
// chat completion.
func envoyHeaders(requestID string) map[string]string {
	return map[string]string{
		":method": "POST", ":path": "/v1/chat/completions", ":authority": "gateway.example", ":scheme": "http",
		"content-type": "application/json", "x-request-id": requestID,
	}
}

// checkExchange checks what the EPP answered: the destination header and
// metadata name the pod the double picked for decode, every header the
// frontend reads is there with the type it parses (and the worker the
// double picked), and every body field is there with its JSON type.
func checkExchange(l line, g graph, d deployment, p program, ex exchange) error {
	var errs []error
	pod := map[string]worker{}
	for _, w := range d.workers {
		pod[w.name] = w
	}
	var want []string
	switch {
	case l.frontendPool:
		// Every frontend scores the same: any of the pool's pods.
		for _, w := range d.workers {
			want = append(want, net.JoinHostPort(w.ip, strconv.Itoa(l.targetPort)))
		}
	case l.scoresTie:
		// Every decode pod scores the same: any of them.
		for _, w := range d.pods("decode") {
			want = append(want, net.JoinHostPort(w.ip, strconv.Itoa(l.targetPort)))
		}
	default:
		want = []string{net.JoinHostPort(pod[p.DecodePod].ip, strconv.Itoa(l.targetPort))}
	}
	if got := ex.setHeaders["x-gateway-destination-endpoint"]; !slices.Contains(want, got) {
		errs = append(errs, fmt.Errorf("x-gateway-destination-endpoint %q, want one of %q (decode pick %s)", got, want, p.DecodePod))
	}
	if !slices.Contains(want, ex.destinationMetadata) {
		errs = append(errs, fmt.Errorf("envoy.lb metadata %q, want one of %q", ex.destinationMetadata, want))
	}
	for _, h := range l.headers {
		if !slices.Contains(h.graphs, g) {
			continue
		}
		v, ok := ex.setHeaders[h.name]
		if !ok {
			errs = append(errs, fmt.Errorf("header %s: not written", h.name))
			continue
		}
		switch h.kind {
		case u64:
			id, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("header %s=%q: not a u64", h.name, v))
				continue
			}
			if w, ok := p.workerID(h.worker); h.worker != "" && ok && id != w {
				errs = append(errs, fmt.Errorf("header %s=%d, want the %s worker %d the router picked", h.name, id, h.worker, w))
			}
		case u32:
			if _, err := strconv.ParseUint(v, 10, 32); err != nil {
				errs = append(errs, fmt.Errorf("header %s=%q: not a u32", h.name, v))
			}
		case b64u32s:
			data, err := base64.StdEncoding.DecodeString(v)
			var arr []any
			if err == nil {
				err = json.Unmarshal(data, &arr)
			}
			if err == nil {
				err = checkU32s(arr)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("header %s=%q: not base64 of a JSON array of u32: %v", h.name, v, err))
			}
		}
		if h.value != "" && v != h.value {
			errs = append(errs, fmt.Errorf("header %s=%q, want %q", h.name, v, h.value))
		}
	}
	var body map[string]any
	dec := json.NewDecoder(bytes.NewReader(ex.body))
	dec.UseNumber() // ids are u64: float64 would round them
	if err := dec.Decode(&body); err != nil {
		return errors.Join(append(errs, fmt.Errorf("forwarded body is not a JSON object: %v", err))...)
	}
	for _, f := range l.bodyFields {
		if len(f.graphs) > 0 && !slices.Contains(f.graphs, g) {
			continue
		}
		var v any = body
		for _, k := range f.path {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		name := strings.Join(f.path, ".")
		if f.kind == u64 {
			if err := checkU64Field(name, v, p, f.worker); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		arr, ok := v.([]any)
		if !ok || len(arr) == 0 {
			errs = append(errs, fmt.Errorf("body %s: %v, want a non-empty array of u32", name, v))
			continue
		}
		if err := checkU32s(arr); err != nil {
			errs = append(errs, fmt.Errorf("body %s: %v", name, err))
		}
	}
	return errors.Join(errs...)
}

// checkU32s checks every element of a decoded JSON array is a u32.
func checkU32s(arr []any) error {
	if len(arr) == 0 {
		return errors.New("empty array")
	}
	for _, x := range arr {
		var n float64
		var err error
		switch x := x.(type) {
		case float64:
			n = x
		case json.Number:
			n, err = x.Float64()
		default:
			err = errors.New("not a number")
		}
		if err != nil || n < 0 || n > 4294967295 || n != float64(uint32(n)) {
			return fmt.Errorf("element %v is not a u32", x)
		}
	}
	return nil
}

// checkU64Field checks a body field is a JSON number (not a string) that
// is a u64, and that it names worker's pick when the program says it.
func checkU64Field(name string, v any, p program, worker string) error {
	n, ok := v.(json.Number)
	if !ok {
		return fmt.Errorf("body %s: %#v, want a JSON number (the frontend parses a u64)", name, v)
	}
	id, err := strconv.ParseUint(n.String(), 10, 64)
	if err != nil {
		return fmt.Errorf("body %s=%s: not a u64", name, n)
	}
	if w, ok := p.workerID(worker); worker != "" && ok && id != w {
		return fmt.Errorf("body %s=%d, want the %s worker %d the router picked", name, id, worker, w)
	}
	return nil
}

// checkClientHeaders checks that every routing header the client sent is
// either removed by the EPP's answer or set by it to another value: a
// header the answer neither sets nor removes reaches the frontend as the
// client sent it.
func checkClientHeaders(sent map[string]string, ex exchange) error {
	var errs []error
	for name, value := range sent {
		removed := slices.Contains(ex.removeHeaders, name)
		set, overwritten := ex.setHeaders[name]
		switch {
		case removed && overwritten:
			errs = append(errs, fmt.Errorf("client header %s: both set (%q) and removed", name, set))
		case removed:
		case overwritten && set != value:
		case overwritten:
			errs = append(errs, fmt.Errorf("client header %s: set to the client's value %q", name, value))
		default:
			errs = append(errs, fmt.Errorf("client header %s=%q: neither set nor removed, Envoy forwards it", name, value))
		}
	}
	return errors.Join(errs...)
}

// reservationCalls are the prefill reservation calls of the double's
// reservation forms. No Dynamo release library has any of them
// (docs/compat/capi.md), so a line built as its release links none.
var reservationCalls = []string{"begin_prefill_reservation", "route_prefill_request_with_reservation",
	"cancel_prefill_reservation", "release_prefill_reservation"}

// checkBookkeeping checks the double saw the booking lifecycle of one
// finished request: registered, prefill routed the advisory way and
// completed (disaggregated), freed, every routing result freed, no
// reservation made, no misuse.
func checkBookkeeping(s doubleState, l line, g graph) error {
	errs := []error{checkNoViolations(s), checkNothingOutstanding(s)}
	c := l.capi
	for _, f := range []string{c.routeDecode, c.register, c.free, c.freeResult} {
		if f != "" && s.Calls[f] == 0 {
			errs = append(errs, fmt.Errorf("%s never called", f))
		}
	}
	if g == disaggregated {
		for _, f := range []string{c.routePrefill, c.markPrefill} {
			if f != "" && s.Calls[f] == 0 {
				errs = append(errs, fmt.Errorf("%s never called", f))
			}
		}
	}
	for _, c := range reservationCalls {
		if s.Calls[c] != 0 {
			errs = append(errs, fmt.Errorf("%s called %d times, but the line's C API has no reservations", c, s.Calls[c]))
		}
	}
	return errors.Join(errs...)
}

// checkInFlight checks what the router holds while a request is served:
// the request registered (when the line's C API registers requests) and,
// as the line's C API has no reservation calls, no booking.
func checkInFlight(s doubleState, registers bool) error {
	var errs []error
	want := 0
	if registers {
		want = 1
	}
	if s.OutstandingRequests != want {
		errs = append(errs, fmt.Errorf("in flight: %d requests registered, want %d (%v)", s.OutstandingRequests, want, s.Requests))
	}
	if s.OutstandingBookings != 0 || len(s.Bookings) != 0 {
		errs = append(errs, fmt.Errorf("in flight: bookings %v held without reservation calls", s.Bookings))
	}
	return errors.Join(errs...)
}

func checkNothingOutstanding(s doubleState) error {
	if s.OutstandingRequests != 0 || s.OutstandingBookings != 0 || s.OutstandingRoutingResults != 0 {
		return fmt.Errorf("outstanding in the router: requests %v, bookings %v, routing results %d",
			s.Requests, s.Bookings, s.OutstandingRoutingResults)
	}
	return nil
}

func checkNoViolations(s doubleState) error {
	if s.Violations != 0 || s.ControlMisses != 0 {
		return fmt.Errorf("C API misuse: %d violations, %d picks outside the candidates", s.Violations, s.ControlMisses)
	}
	return nil
}
