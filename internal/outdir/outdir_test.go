package outdir

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplaceKeepsTheBackup: the previous tree goes to the backup folder
// and stays there; without one it leaves with the staging folder.
func TestReplaceKeepsTheBackup(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for i, keep := range []bool{false, true} {
		s, err := NewStaging(out)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(s.Tree(), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(s.Tree(), "n"), []byte{byte('0' + i)}, 0o644))
		backup := ""
		if keep {
			backup = BackupName(out, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
		}
		require.NoError(t, s.Replace(backup))
		require.NoError(t, s.Remove())
		got, err := os.ReadFile(filepath.Join(out, "n"))
		require.NoError(t, err)
		assert.Equal(t, []byte{byte('0' + i)}, got)
		if keep {
			assert.Equal(t, out+".epp-build-backup-20250102T030405Z", backup)
			assert.FileExists(t, filepath.Join(backup, "n"), "the replaced tree is kept")
			assert.Equal(t, backup+"-2", BackupName(out, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)), "a name not taken")
		}
	}
	entries, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	assert.Len(t, entries, 2, "out and its backup, no staging folder")
}

// TestJournalRoundTrip: a journal reads back as written, and one without
// its record is refused rather than half completed.
func TestJournalRoundTrip(t *testing.T) {
	type record struct{ Head string }
	dir := t.TempDir()
	none, err := ReadJournal[record](dir)
	require.NoError(t, err)
	assert.Nil(t, none, "no .git: nothing to complete")
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	none, err = ReadJournal[record](dir)
	require.NoError(t, err)
	assert.Nil(t, none)

	j := &Journal[record]{Head: "h", Branch: "b", Paths: []string{"a", "b/c"}, Record: &record{Head: "h"}}
	require.NoError(t, WriteJournal(dir, j))
	got, err := ReadJournal[record](dir)
	require.NoError(t, err)
	assert.Equal(t, j, got)

	require.NoError(t, os.WriteFile(JournalPath(dir), []byte(`{"head":"h","record":null}`), 0o644))
	_, err = ReadJournal[record](dir)
	assert.ErrorContains(t, err, "is unreadable")
	require.NoError(t, RemoveJournal(dir))
	assert.NoFileExists(t, JournalPath(dir))
}

// TestRemoveStaleTouchesOnlyOurs: the staging folders of out go, and
// nothing else beside it: not another out's, not a look-alike, not out.
func TestRemoveStaleTouchesOnlyOurs(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	s1, err := NewStaging(out)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(s1.Tree(), 0o755))
	s2, err := NewStaging(out)
	require.NoError(t, err)
	other, err := NewStaging(filepath.Join(parent, "out2"))
	require.NoError(t, err)
	keep := []string{"out", ".out.epp-build-staging-12x", ".out.epp-build-staging-", "out.epp-build-backup-20250102T030405Z"}
	for _, k := range keep {
		require.NoError(t, os.Mkdir(filepath.Join(parent, k), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(parent, ".out.epp-build-staging-77"), nil, 0o644), "a file, not a folder apply made")

	removed, err := RemoveStale(out)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{s1.dir, s2.dir}, removed)
	assert.NoDirExists(t, s1.dir)
	assert.NoDirExists(t, s2.dir)
	assert.DirExists(t, other.dir)
	for _, k := range keep {
		assert.DirExists(t, filepath.Join(parent, k))
	}
	assert.FileExists(t, filepath.Join(parent, ".out.epp-build-staging-77"))
}
