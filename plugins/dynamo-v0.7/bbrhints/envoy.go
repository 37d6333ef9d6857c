package bbrhints

import (
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
