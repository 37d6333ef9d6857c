//go:build unix

package patchset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil"
)

func TestReadRecordRefusesAHostileRecordFile(t *testing.T) {
	testutil.HostileFiles(t, func(t *testing.T, place func(string)) {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git", "epp-build"), 0o755))
		place(filepath.Join(dir, ".git", RecordFile))
		err := testutil.Returns(t, "ReadRecord", func() error {
			_, err := ReadRecord(dir)
			return err
		})
		var refused *inputfile.Error
		require.ErrorAs(t, err, &refused)
	})
}

func TestReadRecordRefusesAVersionThatIsNotAName(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git", "epp-build"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", RecordFile), []byte(`{"version": "../v1\u001b[2J"}`), 0o644))
	_, err := ReadRecord(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `version "../v1\x1b[2J" is not a version name`)
	assert.NotContains(t, err.Error(), "\x1b")
}

// What an edited applied.json says reaches the terminal in apply's and
// status's reasons: escaped.
func TestSeriesChangesEscapeTheRecordsText(t *testing.T) {
	r := &recipe.Recipe{Version: "v1", Upstream: recipe.Upstream{Commit: strings.Repeat("a", 40)}}
	rec := &Record{Version: "v1"}
	rec.UpstreamCommit = "\x1b]0;owned\x07" + strings.Repeat("b", 40)
	rec.Patches = []Applied{{File: "0001-a.patch", SHA256: "\x1b[2J"}, {File: "0002-\x1b[31mred.patch"}, {File: "0003-\x1b[8mhidden.patch"}}
	patches := []*Patch{{File: "0001-a.patch", SHA256: "c"}, {File: "0002-b.patch"}}
	reasons := strings.Join(seriesChanges(r, patches, rec), "\n")
	assert.NotContains(t, reasons, "\x1b")
	assert.NotContains(t, reasons, "\x07")
	assert.Contains(t, reasons, `was 0002-\x1b[31mred.patch`)
	assert.Contains(t, reasons, `patch 0003-\x1b[8mhidden.patch was removed`)
}
