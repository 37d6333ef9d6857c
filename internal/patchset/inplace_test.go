package patchset

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/outdir"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// stamp is what proves a file was not rewritten: its inode and mtime.
type stamp struct {
	ino   uint64
	mtime time.Time
}

func stamps(t *testing.T, dir string) map[string]stamp {
	t.Helper()
	out := map[string]stamp{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = stamp{fi.Sys().(*syscall.Stat_t).Ino, fi.ModTime()}
		return nil
	}))
	return out
}

// twoSeries makes two series on the same base that differ in their first
// patch only: v1 changes a.txt, v2 changes b.txt instead. Both add new.txt
// and delete gone/x.txt.
func twoSeries(t *testing.T, base string) (v1, v2 []*Patch) {
	series := func(first string) []*Patch {
		return seriesFromGit(t, base, func() {
			gitfixture.WriteFiles(t, base, map[string]string{first: numbered(30, "changed")})
			gitfixture.Git(t, base, "commit", "-q", "-am", "Change a file")
			gitfixture.WriteFiles(t, base, map[string]string{"new.txt": "new\n"})
			gitfixture.Git(t, base, "add", "new.txt")
			gitfixture.Git(t, base, "rm", "-q", "gone/x.txt")
			gitfixture.Git(t, base, "commit", "-q", "-m", "Add new, drop gone")
		})
	}
	return series("a.txt"), series("b.txt")
}

// TestReapplyRewritesOnlyWhatChanges: re-applying a series whose first
// patch changed writes the two files whose content changes and nothing
// else, and leaves exactly the tree, modes and commits a fresh apply makes.
func TestReapplyRewritesOnlyWhatChanges(t *testing.T) {
	base := baseRepo(t, map[string]string{
		"a.txt": numbered(30, "a"), "b.txt": numbered(30, "b"), "c.txt": "untouched\n",
		"deep/d/e.txt": "deep\n", "gone/x.txt": "x\n", "hack/run.sh": "#!/bin/sh\n",
	})
	require.NoError(t, os.Chmod(filepath.Join(base, "hack/run.sh"), 0o755))
	gitfixture.Git(t, base, "commit", "-q", "-am", "exec")
	v1, v2 := twoSeries(t, base)
	r := &recipe.Recipe{Version: "v1", Upstream: recipe.Upstream{Commit: gitfixture.Git(t, base, "rev-parse", "HEAD")}}
	opt := Options{Branch: "epp-build/v1"}
	out := filepath.Join(t.TempDir(), "out")
	_, err := applyPatches(context.Background(), r, v1, cloneBase(t, base), out, opt)
	require.NoError(t, err)
	before := stamps(t, out)
	time.Sleep(10 * time.Millisecond) // a rewritten file would get a later mtime

	noFetch := func(context.Context) (Base, error) {
		t.Fatal("a re-apply in place needs no upstream")
		return Base{}, nil
	}
	res, err := applyPatches(context.Background(), r, v2, noFetch, out, opt)
	require.NoError(t, err)
	assert.True(t, res.InPlace)
	assert.Equal(t, []string{"a.txt", "b.txt"}, res.Rewritten)
	after := stamps(t, out)
	for p, s := range before {
		if p == "a.txt" || p == "b.txt" {
			assert.NotEqual(t, s, after[p], "%s was rewritten", p)
			continue
		}
		assert.Equal(t, s, after[p], "%s must not be rewritten", p)
	}

	fresh := filepath.Join(t.TempDir(), "fresh")
	want, err := applyPatches(context.Background(), r, v2, cloneBase(t, base), fresh, opt)
	require.NoError(t, err)
	assert.Equal(t, want.Record.Head, res.Record.Head, "the same commits")
	assert.Equal(t, gitfixture.Git(t, fresh, "log", "--format=%H %T %s", "HEAD"), gitfixture.Git(t, out, "log", "--format=%H %T %s", "HEAD"))
	assert.Equal(t, gitfixture.Git(t, fresh, "ls-files", "-s"), gitfixture.Git(t, out, "ls-files", "-s"), "the same files and modes")
	assert.Equal(t, gitfixture.Git(t, fresh, "symbolic-ref", "HEAD"), gitfixture.Git(t, out, "symbolic-ref", "HEAD"))
	assert.Empty(t, gitfixture.Git(t, out, "status", "--porcelain", "--untracked-files=all", "--ignored"))
	assert.Empty(t, gitfixture.Git(t, out, "diff-files", "--name-only"), "the index knows the rewritten files")
	gitfixture.Git(t, out, "fsck", "--strict") // every object is there, the dropped pack was not needed
	packs := func(dir string) []string {
		names, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
		require.NoError(t, err)
		for i := range names {
			names[i] = filepath.Base(names[i])
		}
		return names
	}
	assert.Len(t, packs(out), len(packs(fresh)), "the replaced series' pack is gone: %v", packs(out))
	for p := range stamps(t, fresh) {
		got, err := os.ReadFile(filepath.Join(out, p))
		require.NoError(t, err)
		w, _ := os.ReadFile(filepath.Join(fresh, p))
		assert.Equal(t, string(w), string(got), p)
	}
	rec, err := ReadRecord(out)
	require.NoError(t, err)
	// The same commits and files per patch; the pack may also hold base
	// trees the re-apply encoded again.
	wantRes, gotRes := want.Record.Result, rec.Result
	wantRes.Pack, gotRes.Pack = "", ""
	assert.Equal(t, wantRes, gotRes)
	_, err = os.Stat(outdir.JournalPath(out))
	assert.ErrorIs(t, err, os.ErrNotExist)

	// Nothing left to do: the next run says so.
	again, err := applyPatches(context.Background(), r, v2, noFetch, out, opt)
	require.NoError(t, err)
	assert.True(t, again.AlreadyApplied)
}

// TestReapplyJournalIsCompleted: a re-apply in place stopped after writing
// its journal (files half updated) is completed by the next apply.
func TestReapplyJournalIsCompleted(t *testing.T) {
	base := baseRepo(t, map[string]string{"a.txt": numbered(30, "a"), "b.txt": numbered(30, "b"), "gone/x.txt": "x\n"})
	v1, v2 := twoSeries(t, base)
	r := &recipe.Recipe{Version: "v1", Upstream: recipe.Upstream{Commit: gitfixture.Git(t, base, "rev-parse", "HEAD")}}
	opt := Options{Branch: "epp-build/v1"}
	out := filepath.Join(t.TempDir(), "out")
	_, err := applyPatches(context.Background(), r, v1, cloneBase(t, base), out, opt)
	require.NoError(t, err)

	crash := func() error { return errCrash }
	stopAfterJournal = &crash
	_, err = applyPatches(context.Background(), r, v2, cloneBase(t, base), out, opt)
	stopAfterJournal = nil
	require.ErrorIs(t, err, errCrash)
	_, err = os.Stat(outdir.JournalPath(out))
	require.NoError(t, err, "the journal stays")

	res, err := applyPatches(context.Background(), r, v2, cloneBase(t, base), out, opt)
	require.NoError(t, err)
	assert.True(t, res.AlreadyApplied, "the journal's re-apply was completed first")
	require.NotNil(t, res.Completed, "the run says what it completed")
	assert.Equal(t, res.Record.Head, res.Completed.Head)
	assert.Equal(t, "v1", res.Completed.Version)
	fresh := filepath.Join(t.TempDir(), "fresh")
	_, err = applyPatches(context.Background(), r, v2, cloneBase(t, base), fresh, opt)
	require.NoError(t, err)
	assert.Equal(t, gitfixture.Git(t, fresh, "ls-files", "-s"), gitfixture.Git(t, out, "ls-files", "-s"))
	assert.Equal(t, gitfixture.Git(t, fresh, "rev-parse", "HEAD"), gitfixture.Git(t, out, "rev-parse", "HEAD"))
	assert.Empty(t, gitfixture.Git(t, out, "status", "--porcelain", "--untracked-files=all"))
}

var errCrash = errors.New("crash after the journal (test)")

// TestReapplyUndoesAFileBecomingAFolder: the old series turned the file x
// into a folder x/ and deleted d/e.txt; the new series does neither. The
// re-apply in place puts both back as the base has them.
func TestReapplyUndoesAFileBecomingAFolder(t *testing.T) {
	base := baseRepo(t, map[string]string{"x": "a file\n", "d/e.txt": "e\n", "keep.txt": "k\n"})
	v1 := seriesFromGit(t, base, func() {
		gitfixture.Git(t, base, "rm", "-q", "x", "d/e.txt")
		gitfixture.WriteFiles(t, base, map[string]string{"x/y": "now a folder\n"})
		gitfixture.Git(t, base, "add", "x/y")
		gitfixture.Git(t, base, "commit", "-q", "-m", "Swap")
	})
	v2 := seriesFromGit(t, base, func() {
		gitfixture.WriteFiles(t, base, map[string]string{"keep.txt": "k2\n"})
		gitfixture.Git(t, base, "commit", "-q", "-am", "Swap")
	})
	r := &recipe.Recipe{Version: "v1", Upstream: recipe.Upstream{Commit: gitfixture.Git(t, base, "rev-parse", "HEAD")}}
	opt := Options{Branch: "epp-build/v1"}
	out := filepath.Join(t.TempDir(), "out")
	_, err := applyPatches(context.Background(), r, v1, cloneBase(t, base), out, opt)
	require.NoError(t, err)
	res, err := applyPatches(context.Background(), r, v2, cloneBase(t, base), out, opt)
	require.NoError(t, err)
	assert.True(t, res.InPlace)
	fresh := filepath.Join(t.TempDir(), "fresh")
	want, err := applyPatches(context.Background(), r, v2, cloneBase(t, base), fresh, opt)
	require.NoError(t, err)
	assert.Equal(t, want.Record.Head, res.Record.Head)
	assert.Equal(t, gitfixture.Git(t, fresh, "ls-files", "-s"), gitfixture.Git(t, out, "ls-files", "-s"))
	assert.Empty(t, gitfixture.Git(t, out, "status", "--porcelain", "--untracked-files=all", "--ignored"))
	data, err := os.ReadFile(filepath.Join(out, "x"))
	require.NoError(t, err)
	assert.Equal(t, "a file\n", string(data))
}

// TestOutThatIsAFileIsStillNamedAsSuch: looking for a journal does not
// hide what is wrong with an --out that is a file.
func TestOutThatIsAFileIsStillNamedAsSuch(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.WriteFile(out, []byte("x"), 0o644))
	_, err := applyPatches(context.Background(), &recipe.Recipe{Version: "v1"}, nil, nil, out, Options{})
	var ex *ExistingTreeError
	require.ErrorAs(t, err, &ex)
	assert.Contains(t, err.Error(), "is not a folder")
}
