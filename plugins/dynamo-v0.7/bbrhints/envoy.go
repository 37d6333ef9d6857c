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
