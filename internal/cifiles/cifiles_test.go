package cifiles

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
)

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestImageRefsListPushedBuildsOneALine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "refs.txt")
	require.NoError(t, WriteImageRefs(path, []Built{
		{Version: "v0.7.0", Repository: "r.example/epp", Digest: digest, Pushed: true},
		{Version: "v0.8.0", Repository: "r.example/epp", Digest: digest, Pushed: false},
	}))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "r.example/epp@"+digest+"\n", string(data))
}

// One build: buildx build's keys at the top level; several: keyed by
// version, as buildx bake keys its targets.
func TestMetadataFileHasBuildxKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.json")
	one := Built{Version: "v0.7.0", Repository: "r.example/epp", Tags: []string{"r.example/epp:v0.7.0", "r.example/epp:x"}, Digest: digest}
	require.NoError(t, WriteMetadata(context.Background(), path, []Built{one}, image.RegistryOptions{}))
	var flat map[string]any
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &flat))
	assert.Equal(t, digest, flat["containerimage.digest"])
	assert.Equal(t, "r.example/epp:v0.7.0,r.example/epp:x", flat["image.name"])

	two := one
	two.Version = "v0.8.0"
	require.NoError(t, WriteMetadata(context.Background(), path, []Built{one, two}, image.RegistryOptions{}))
	var keyed map[string]map[string]any
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &keyed))
	assert.Equal(t, digest, keyed["v0.8.0"]["containerimage.digest"])
	assert.Equal(t, "v0.7.0", keyed["v0.7.0"]["epp-build.version"])
}
