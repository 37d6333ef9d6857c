package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReadRoundTrip(t *testing.T) {
	r := New()
	r.Inputs.UpstreamCommit = "978c23bb96cce25f11cea2421523cb479026e2e9"
	r.Inputs.Patches = []Patch{{Name: "0001-a.patch", SHA256: "ab"}}
	r.Inputs.Platforms = []string{"linux/amd64", "linux/arm64"}
	r.Outputs.IndexDigest = "sha256:1"
	r.Outputs.Images = []PlatformImage{{Platform: "linux/amd64", Digest: "sha256:2", Size: 10, CAPICached: true}}
	r.Time("capi", 1500*time.Millisecond)

	path := filepath.Join(t.TempDir(), "nested", "report.json")
	require.NoError(t, r.Write(path))
	assert.NoFileExists(t, path+".tmp")
	back, err := Read(path)
	require.NoError(t, err)
	assert.Equal(t, r, back)

	// Field names are the documented contract for CI consumers.
	var raw map[string]any
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &raw))
	assert.Equal(t, "sha256:1", raw["outputs"].(map[string]any)["indexDigest"])
	assert.Equal(t, 1.5, raw["timings"].([]any)[0].(map[string]any)["seconds"])
}

func TestReadRejectsGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	require.NoError(t, os.WriteFile(path, []byte("{"), 0o644))
	_, err := Read(path)
	require.ErrorContains(t, err, path)
}
