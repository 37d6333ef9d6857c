package attest

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/testutil"
)

// An index that epp-build did not push (no platform images with
// attestations, no report) reads as empty lists and a report that is
// none, in JSON as in text: not "platforms": null and no report field.
func TestAPlainIndexHasEmptyListsAndNoReport(t *testing.T) {
	ref := testutil.StartRegistry(t) + "/plain/epp:v1"
	testutil.PushRandomIndex(t, ref)
	img, err := Read(context.Background(), ref, image.RegistryOptions{Insecure: true})
	require.NoError(t, err)

	doc, err := json.Marshal(img)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(doc, &got))
	assert.Equal(t, []any{}, got["platforms"], "%s", doc)
	report, ok := got["report"]
	assert.True(t, ok, "the report field says none: %s", doc)
	assert.Nil(t, report)

	var text bytes.Buffer
	require.NoError(t, img.WriteText(&text))
	assert.Contains(t, text.String(), "report:     none")
}
