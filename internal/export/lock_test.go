package export

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/outdir"
	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// appliedTree is a work tree as apply leaves it: the upstream commit
// marked, and one commit of the series on it.
func appliedTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tree")
	gitfixture.Git(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	write(t, dir, map[string]string{"a.txt": "a\n"})
	gitfixture.Git(t, dir, "add", "-A")
	commit(t, dir, "upstream")
	gitfixture.Git(t, dir, "update-ref", "refs/epp-build/upstream", "HEAD")
	write(t, dir, map[string]string{"a.txt": "a\nb\n"})
	gitfixture.Git(t, dir, "add", "-A")
	commit(t, dir, "Add b\n\nWhy b.\n\nReason: test")
	return dir
}

// TestExportWaitsForAnApplyIntoTheTree: export reads the tree under
// apply's lock, so it waits (saying so) while an apply holds it, and reads
// the tree once the apply is done.
func TestExportWaitsForAnApplyIntoTheTree(t *testing.T) {
	dir := appliedTree(t)
	unlock, err := outdir.Lock(context.Background(), dir, nil)
	require.NoError(t, err)
	waiting := make(chan string, 1)
	type result struct {
		patches []Patch
		err     error
	}
	done := make(chan result, 1)
	go func() {
		p, err := Run(context.Background(), dir, "", func(format string, args ...any) { waiting <- format })
		done <- result{p, err}
	}()
	assert.Contains(t, <-waiting, "waiting for another epp-build apply")
	select {
	case r := <-done:
		t.Fatalf("export read the tree while an apply held it: %v", r.err)
	default:
	}
	unlock()
	var r result
	require.NoError(t, testutil.Returns(t, "export after the apply", func() error { r = <-done; return nil }))
	require.NoError(t, r.err)
	require.Len(t, r.patches, 1)
	assert.NoFileExists(t, outdir.LockPath(dir), "nothing left beside the tree")
}

// TestExportRefusesAHalfDoneReapply: a tree whose re-apply a killed run
// left half done is not exported as it stands.
func TestExportRefusesAHalfDoneReapply(t *testing.T) {
	dir := appliedTree(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(outdir.JournalPath(dir)), 0o755))
	require.NoError(t, os.WriteFile(outdir.JournalPath(dir), []byte("{}"), 0o644))
	_, err := Run(context.Background(), dir, "", nil)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "run that apply again to complete it, then export"), err.Error())
}
