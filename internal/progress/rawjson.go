package progress

import (
	"encoding/json"
	"time"
)

// The rawjson events, one object a line. "line" is a line the other modes
// print (a patch applied, a notice); a task reports "progress" as it moves,
// then "done" or "abort". Bytes is always there (0 is an answer); Total is
// 0 when unknown.
type lineEvent struct {
	Time  time.Time `json:"time"`
	Event string    `json:"event"`
	Text  string    `json:"text"`
}

type taskEvent struct {
	Time    time.Time `json:"time"`
	Event   string    `json:"event"`
	Task    string    `json:"task"`
	Bytes   int64     `json:"bytes"`
	Total   int64     `json:"total,omitempty"`
	Rate    int64     `json:"rate,omitempty"` // bytes a second, the average so far
	Seconds float64   `json:"seconds,omitempty"`
}

// event writes one event as a line; r.mu is held. A failed write is the
// output's problem, not the work's, as for the other modes.
func (r *Reporter) event(v any) {
	e := json.NewEncoder(r.out)
	e.SetEscapeHTML(false)
	_ = e.Encode(v)
}
