package export

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A series edit rewrites the folder with Write: the patch files it no
// longer has go, even when the folder's path looks like a glob.
func TestWriteRemovesStalePatchesUnderAGlobLikeFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "br[ab]", "v1")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "0002-old-name.patch"), []byte("old"), 0o644))

	require.NoError(t, Write(dir, []Patch{{Name: "0002-new-name.patch", Data: []byte("new")}}))
	assert.NoFileExists(t, filepath.Join(dir, "0002-old-name.patch"))
	assert.FileExists(t, filepath.Join(dir, "0002-new-name.patch"))
}
