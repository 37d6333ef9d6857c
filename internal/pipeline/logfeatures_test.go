package pipeline

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/capi"
)

// The build log names the chosen variant of each axis (and only it) next
// to the optional features.
func TestLogFeaturesNamesTheChosenVariants(t *testing.T) {
	var log bytes.Buffer
	logFeatures(&log, []capi.Feature{
		{Tag: "extra", Missing: map[string][]string{"linux/amd64": {"api_extra"}}},
		{Tag: "routers_result_5", Axis: "routers_result", Variant: "5", Header: "variant_routers_result-5.h"},
		{Tag: "routers_result_9", Axis: "routers_result", Variant: "9", Header: "variant_routers_result-9.h", Enabled: true},
	})
	assert.Equal(t, "capi: feature extra off: the linux/amd64 library lacks api_extra\n"+
		"capi: variant routers_result 9 (build tag routers_result_9; the library header matches variant_routers_result-9.h)\n",
		log.String())
}
