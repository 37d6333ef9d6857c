package bbrhints

import (
	"strconv"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	"github.com/go-logr/logr"
)

// FromHeaderMap is FromHeaders for the header map Envoy's ext_proc sends, so
// the BBR edit stays one line.
func FromHeaderMap(logger logr.Logger, headers *corev3.HeaderMap) Hints {
	list := headers.GetHeaders()
	converted := make([]Header, 0, len(list))
	for _, h := range list {
		converted = append(converted, Header{Key: h.GetKey(), Value: h.GetValue(), RawValue: h.GetRawValue()})
	}
	return FromHeaders(logger, converted)
}

// ContentLength is the header a rewritten body must travel with. Since
// Envoy 1.29 a buffered body mutation keeps the client's Content-Length,
// and Envoy answers 500 when the new body's length disagrees with it: the
// external processor owns that header.
func ContentLength(body []byte) *corev3.HeaderValueOption {
	return &corev3.HeaderValueOption{Header: &corev3.HeaderValue{
		Key:      "Content-Length",
		RawValue: []byte(strconv.Itoa(len(body))),
	}}
}

// HeaderMutations are the request headers BBR sets when it rewrote a body
// with h: the new Content-Length and, when there is a worker id,
// x-worker-instance-id with its canonical value, as Dynamo's BBR sets it,
// so whatever routes after BBR sees the worker the body names.
func (h Hints) HeaderMutations(body []byte) []*corev3.HeaderValueOption {
	out := []*corev3.HeaderValueOption{ContentLength(body)}
	if h.HasWorkerID {
		out = append(out, &corev3.HeaderValueOption{Header: &corev3.HeaderValue{
			Key:      WorkerIDHeader,
			RawValue: []byte(strconv.FormatUint(h.WorkerID, 10)),
		}})
	}
	return out
}
