//go:build unix

package outdir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/testutil"
)

// The re-apply journal and the lock file's pid are read bounded: in place
// of either, a FIFO or /dev/zero is refused (or, for the pid, says
// nothing) instead of hanging apply or running it out of memory.
func TestJournalAndLockHolderAreReadBounded(t *testing.T) {
	testutil.HostileFiles(t, func(t *testing.T, place func(string)) {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Dir(JournalPath(dir)), 0o755))
		place(JournalPath(dir))
		err := testutil.Returns(t, "ReadJournal", func() error {
			_, err := ReadJournal[struct{}](dir)
			return err
		})
		var refused *inputfile.Error
		require.ErrorAs(t, err, &refused)

		lock := filepath.Join(t.TempDir(), "out.epp-build.lock")
		place(lock)
		var who string
		require.NoError(t, testutil.Returns(t, "holder", func() error { who = holder(lock); return nil }))
		assert.Empty(t, who)
	})
}
