//go:build unix

package backport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/testutil"
)

// A state file swapped for a FIFO or /dev/zero is refused input, not a
// hang or a read until memory runs out.
func TestStateFilesAreReadAsBoundedRegularFiles(t *testing.T) {
	testutil.HostileFiles(t, func(t *testing.T, place func(string)) {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(picksDir(dir), 0o755))
		for what, read := range map[string]func() error{
			"rebase.json": func() error {
				place(filepath.Join(dir, ".git", stateFile))
				_, err := load(dir)
				return err
			},
			"pick.json": func() error {
				place(filepath.Join(dir, ".git", pickStateFile))
				_, err := loadPickState(dir)
				return err
			},
			"a stored pick": func() error {
				place(filepath.Join(picksDir(dir), "0001.json"))
				_, err := loadPick(dir, "0001.json")
				return err
			},
		} {
			err := testutil.Returns(t, "reading "+what, read)
			var refused *inputfile.Error
			require.ErrorAs(t, err, &refused, what)
		}
	})
}

func TestTheActiveRebaseNoteIsReadAsABoundedRegularFile(t *testing.T) {
	testutil.HostileFiles(t, func(t *testing.T, place func(string)) {
		t.Setenv("XDG_CACHE_HOME", t.TempDir())
		root := t.TempDir()
		d, err := DefaultDir(root)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(d), 0o755))
		place(activeFile(d))
		err = testutil.Returns(t, "FindInProgress", func() error {
			_, err := FindInProgress(root)
			return err
		})
		var refused *inputfile.Error
		require.ErrorAs(t, err, &refused)
	})
}
