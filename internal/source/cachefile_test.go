//go:build unix

package source

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
)

// A cache file or the netrc swapped for a FIFO or /dev/zero makes the
// entry corrupt (fetched again) or the file absent, without a hang or a
// read until memory runs out.
func TestCacheFilesAndNetrcAreReadBounded(t *testing.T) {
	testutil.HostileFiles(t, func(t *testing.T, place func(string)) {
		for _, name := range []string{entryFile, corruptMark} {
			dir := t.TempDir()
			place(filepath.Join(dir, name))
			err := testutil.Returns(t, "loadEntry with "+name, func() error {
				_, err := loadEntry(dir, expectation{})
				return err
			})
			assert.ErrorIs(t, err, ErrCorrupt, name)
		}

		dir := t.TempDir()
		place(filepath.Join(dir, statFile))
		require.NoError(t, testutil.Returns(t, "readStatSnapshot", func() error {
			assert.Nil(t, readStatSnapshot(dir))
			return nil
		}))

		netrc := filepath.Join(t.TempDir(), "netrc")
		place(netrc)
		t.Setenv("NETRC", netrc)
		t.Setenv("GOAUTH", "")
		require.NoError(t, testutil.Returns(t, "readNetrc", func() error {
			assert.Empty(t, readNetrc())
			return nil
		}))
	})
}
