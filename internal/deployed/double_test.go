//go:build e2e

package deployed

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// double talks to the C API test double linked into the EPP, through the
// two files its control module reads and writes
// (testdata/capi-double/src/control.rs).
type double struct {
	control string // EPP_BUILD_DOUBLE_CONTROL
	state   string // EPP_BUILD_DOUBLE_STATE
}

func newDouble(dir string) double {
	return double{control: filepath.Join(dir, "double-control.json"), state: filepath.Join(dir, "double-state.json")}
}

func (d double) env() map[string]string {
	return map[string]string{"EPP_BUILD_DOUBLE_CONTROL": d.control, "EPP_BUILD_DOUBLE_STATE": d.state}
}

// program is what the double's router is told to do.
type program struct {
	DecodePod  string            `json:"decode_pod,omitempty"`
	PrefillPod string            `json:"prefill_pod,omitempty"`
	Errors     map[string]uint32 `json:"errors,omitempty"`
	// DecodeWorker and PrefillWorker program the pipeline generation,
	// which knows workers by id, not pods (-1: no prefill worker).
	DecodeWorker  *int64 `json:"decode_worker,omitempty"`
	PrefillWorker *int64 `json:"prefill_worker,omitempty"`
}

// workerID is the id the headers must carry for role's worker.
func (p program) workerID(role string) (uint64, bool) {
	switch {
	case role == "decode" && p.DecodeWorker != nil:
		return uint64(*p.DecodeWorker), true
	case role == "prefill" && p.PrefillWorker != nil:
		return uint64(*p.PrefillWorker), *p.PrefillWorker >= 0
	case role == "decode" && p.DecodePod != "":
		return fnv1a64(p.DecodePod), true
	case role == "prefill" && p.PrefillPod != "":
		return fnv1a64(p.PrefillPod), true
	}
	return 0, false
}

// set programs the router; it takes effect at its next call.
func (d double) set(t *testing.T, p program) {
	data, err := json.Marshal(p)
	require.NoError(t, err)
	tmp := d.control + ".tmp"
	require.NoError(t, os.WriteFile(tmp, data, 0o644))
	require.NoError(t, os.Rename(tmp, d.control))
}

// doubleState is the double's bookkeeping after its latest call.
type doubleState struct {
	PID                       int                        `json:"pid"`
	Calls                     map[string]int             `json:"calls"`
	InjectedErrors            int                        `json:"injected_errors"`
	ControlMisses             int                        `json:"control_misses"`
	LastPick                  map[string]string          `json:"last_pick"`
	Destroyed                 []destroyedHandle          `json:"destroyed"`
	Violations                int                        `json:"violations"`
	IgnoredCalls              int                        `json:"ignored_calls"`
	LiveHandles               int                        `json:"live_handles"`
	OutstandingRequests       int                        `json:"outstanding_requests"`
	OutstandingBookings       int                        `json:"outstanding_bookings"`
	OutstandingRoutingResults int                        `json:"outstanding_routing_results"`
	Runtimes                  int                        `json:"runtimes"`
	Requests                  map[string]requestProgress `json:"requests"`
	Bookings                  map[string]string          `json:"bookings"`
	// The pipeline generation's part, folded into the fields above by
	// read (a process uses one generation).
	LivePipelines              int                        `json:"live_pipelines"`
	PipelineRequests           map[string]requestProgress `json:"pipeline_requests"`
	OutstandingPipelineResults int                        `json:"outstanding_pipeline_results"`
	DestroyedPipelines         []destroyedHandle          `json:"destroyed_pipelines"`
}

type destroyedHandle struct {
	Requests int `json:"requests"`
	Bookings int `json:"bookings"`
}

type requestProgress struct {
	PrefillComplete bool `json:"prefill_complete"`
}

// read returns the latest state; an absent file is an empty state (no
// call yet).
func (d double) read(t *testing.T) doubleState {
	var s doubleState
	data, err := os.ReadFile(d.state)
	if os.IsNotExist(err) {
		return s
	}
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &s), "%s", data)
	s.LiveHandles += s.LivePipelines
	s.OutstandingRoutingResults += s.OutstandingPipelineResults
	s.Destroyed = append(s.Destroyed, s.DestroyedPipelines...)
	for id, r := range s.PipelineRequests {
		if s.Requests == nil {
			s.Requests = map[string]requestProgress{}
		}
		s.Requests[id] = r
		s.OutstandingRequests++
	}
	return s
}

// settled waits until nothing is outstanding in the double (bookkeeping
// ends in the background after a stream ends) and returns that state.
func (d double) settled(t *testing.T, what string) doubleState {
	t.Helper()
	var s doubleState
	eventually(t, 20*time.Second, what+": nothing outstanding in the C API double", func() error {
		s = d.read(t)
		if s.OutstandingRequests != 0 || s.OutstandingBookings != 0 || s.OutstandingRoutingResults != 0 {
			return fmt.Errorf("requests %v, bookings %v, routing results %d",
				s.Requests, s.Bookings, s.OutstandingRoutingResults)
		}
		return nil
	})
	return s
}

// registered waits until the router holds a registered request (the
// EPP may register after it answered) and returns that state.
func (d double) registered(t *testing.T, what string) doubleState {
	t.Helper()
	var s doubleState
	eventually(t, 20*time.Second, what+": a request registered in the C API double", func() error {
		s = d.read(t)
		if s.OutstandingRequests == 0 {
			return errors.New("no request registered")
		}
		return nil
	})
	return s
}

// fnv1a64 is the double's worker id of a pod name.
func fnv1a64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
