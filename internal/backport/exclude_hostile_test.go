package backport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
)

// A FIFO or a device at .git/info/exclude does not hang the --exec
// status check; its patterns are taken as none.
func TestInfoExcludesOfWhatIsNoFileAreNone(t *testing.T) {
	testutil.HostileFiles(t, func(t *testing.T, place func(string)) {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git", "info"), 0o755))
		place(filepath.Join(dir, ".git", "info", "exclude"))
		var got int
		_ = testutil.Returns(t, "infoExcludes", func() error {
			got = len(infoExcludes(dir))
			return nil
		})
		assert.Zero(t, got)
	})
}
