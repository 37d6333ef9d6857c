//go:build unix

package pipeline

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
)

// A repository can check out a symlink to /dev/zero (or a FIFO can be put)
// where the report reads go.mod, go.sum or a Cargo.toml: the report then
// goes without them instead of the build hanging or running out of memory.
func TestTreeFilesForTheReportAreReadBounded(t *testing.T) {
	testutil.HostileFiles(t, func(t *testing.T, place func(string)) {
		tree := t.TempDir()
		place(filepath.Join(tree, "go.mod"))
		require.NoError(t, testutil.Returns(t, "goModules", func() error {
			main, mods := goModules(Input{TreeDir: tree})
			assert.Nil(t, main)
			assert.Nil(t, mods)
			return nil
		}))
		cargo := filepath.Join(t.TempDir(), "Cargo.toml")
		place(cargo)
		require.NoError(t, testutil.Returns(t, "tomlVersion", func() error {
			v, ws := tomlVersion(cargo, "package")
			assert.Empty(t, v)
			assert.False(t, ws)
			return nil
		}))
	})
}
