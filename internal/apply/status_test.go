package apply

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The committed recipes are regenerated (check-patches keeps them so):
// the offline comparison finds none stale, and finds an edited plugin.
func TestStaleGeneratedAgreesWithRegen(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{"patches", "plugins", "ffi"} {
		require.NoError(t, os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join("..", "..", dir))))
	}
	patches := filepath.Join(root, "patches")
	versions, err := recipe.Versions(patches)
	require.NoError(t, err)
	for _, v := range versions {
		r, err := recipe.LoadVersion(patches, v)
		require.NoError(t, err)
		g, err := StaleGenerated(r)
		require.NoError(t, err, v)
		assert.Nil(t, g, "%s is regenerated", v)
	}

	f := filepath.Join(root, "plugins", "dynamo-v1.4", "booking", "doc.go")
	if _, err := os.Stat(f); err != nil {
		entries, err := os.ReadDir(filepath.Dir(f))
		require.NoError(t, err)
		f = filepath.Join(filepath.Dir(f), entries[0].Name())
	}
	data, err := os.ReadFile(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(f, append(data, []byte("\n// an edit\n")...), 0o644))
	r, err := recipe.LoadVersion(patches, "v1.4.2")
	require.NoError(t, err)
	g, err := StaleGenerated(r)
	require.NoError(t, err)
	require.NotNil(t, g)
	assert.Contains(t, g.Files, "0002-dynamo-booking-lifecycle-with-a-bounded-executor-and.patch: pkg/epp/framework/plugins/dynamo/booking/"+filepath.Base(f)+": content differs")
}
