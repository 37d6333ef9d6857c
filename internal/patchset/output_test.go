package patchset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/guard"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// cloneBase delivers the base repository by cloning it with git.
func cloneBase(t *testing.T, base string) func(context.Context) (Base, error) {
	return func(context.Context) (Base, error) {
		return Base{
			Upstream: source.Upstream{UpstreamCommit: gitfixture.Git(t, base, "rev-parse", "HEAD"), Via: "test"},
			Materialize: func(_ context.Context, dst string) error {
				gitfixture.Git(t, filepath.Dir(dst), "clone", "-q", base, dst)
				return nil
			},
		}, nil
	}
}

// appendSeries makes n patches, each appending a line to a.txt.
func appendSeries(t *testing.T, base string, n int) []*Patch {
	return seriesFromGit(t, base, func() {
		content := "start\n"
		for i := 0; i < n; i++ {
			content += fmt.Sprintf("line %d\n", i)
			gitfixture.WriteFiles(t, base, map[string]string{"a.txt": content})
			gitfixture.Git(t, base, "commit", "-q", "-am", fmt.Sprintf("Add line %d", i))
		}
	})
}

func TestCancelledApplyLeavesOutUntouched(t *testing.T) {
	base := baseRepo(t, map[string]string{"a.txt": "start\n"})
	patches := appendSeries(t, base, 10)
	r := &recipe.Recipe{Version: "v1"}
	parent := t.TempDir()
	out := filepath.Join(parent, "out")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := Options{Progress: func(done, _ int, _ *Patch) {
		if done == 5 {
			cancel()
		}
	}}
	_, err := applyPatches(ctx, r, patches, cloneBase(t, base), out, opt)
	require.ErrorIs(t, err, context.Canceled)
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Empty(t, entries, "neither --out nor the staging folder remains")

	// A conflict in the last patch leaves an existing tree as it was.
	res, err := applyPatches(context.Background(), r, patches[:3], cloneBase(t, base), out, Options{})
	require.NoError(t, err)
	broken := *patches[9]
	broken.SHA256 = "changed"
	_, err = applyPatches(context.Background(), r, append(patches[:3:3], &broken), cloneBase(t, base), out, Options{})
	var conflict *ConflictError
	require.ErrorAs(t, err, &conflict)
	rec, err := ReadRecord(out)
	require.NoError(t, err)
	assert.Equal(t, res.Record.Head, rec.Head, "the previous tree is still in place")
	entries, err = os.ReadDir(parent)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only --out remains")
}

func TestReapplyKeepsWhatTheSeriesDoesNotReproduce(t *testing.T) {
	base := baseRepo(t, map[string]string{"a.txt": "start\n"})
	patches := appendSeries(t, base, 2)
	r := &recipe.Recipe{Version: "v1", Upstream: recipe.Upstream{Commit: gitfixture.Git(t, base, "rev-parse", "HEAD")}}
	out := filepath.Join(t.TempDir(), "out")
	_, err := applyPatches(context.Background(), r, patches, cloneBase(t, base), out, Options{Branch: "epp-build/v1"})
	require.NoError(t, err)

	// An amended commit with the same tree holds nothing the series lacks.
	gitfixture.Git(t, out, "commit", "-q", "--amend", "-m", "Reworded")
	res, err := applyPatches(context.Background(), r, patches, cloneBase(t, base), out, Options{})
	require.NoError(t, err)
	assert.True(t, res.AlreadyApplied, "%v %v", res.Reasons, res.Backup)

	// A commit with new content does, even with the same series.
	gitfixture.WriteFiles(t, out, map[string]string{"b.txt": "mine\n"})
	gitfixture.Git(t, out, "add", "b.txt")
	gitfixture.Git(t, out, "commit", "-q", "-m", "Mine")
	_, err = applyPatches(context.Background(), r, patches, cloneBase(t, base), out, Options{})
	var local *guard.LocalChangesError
	require.ErrorAs(t, err, &local)
	require.Len(t, local.Changes.Commits, 1)
	assert.Equal(t, "Mine", local.Changes.Commits[0].Subject)

	res, err = applyPatches(context.Background(), r, patches, cloneBase(t, base), out, Options{Force: true})
	require.NoError(t, err)
	require.NotEmpty(t, res.Backup)
	assert.FileExists(t, filepath.Join(res.Backup, "b.txt"))
	assert.NoFileExists(t, filepath.Join(out, "b.txt"))
	assert.Equal(t, res.Record.Head, gitfixture.Git(t, out, "rev-parse", "HEAD"))
}

// TestAnotherVersionKeepsTheUsersGitConfigAndHooks: applying a series on
// another upstream replaces a clean tree whole; the remotes, settings and
// hooks the user added to its .git come along, and the outcome says so.
func TestAnotherVersionKeepsTheUsersGitConfigAndHooks(t *testing.T) {
	base1 := baseRepo(t, map[string]string{"a.txt": "start\n"})
	base2 := baseRepo(t, map[string]string{"a.txt": "start\n", "b.txt": "other upstream\n"})
	p1, p2 := appendSeries(t, base1, 1), appendSeries(t, base2, 2)
	r1 := &recipe.Recipe{Version: "v1", Upstream: recipe.Upstream{Commit: gitfixture.Git(t, base1, "rev-parse", "HEAD")}}
	r2 := &recipe.Recipe{Version: "v2", Upstream: recipe.Upstream{Commit: gitfixture.Git(t, base2, "rev-parse", "HEAD")}}
	out := filepath.Join(t.TempDir(), "out")
	_, err := applyPatches(context.Background(), r1, p1, cloneBase(t, base1), out, Options{Branch: "epp-build/v1"})
	require.NoError(t, err)
	gitfixture.Git(t, out, "remote", "add", "mine", "https://example.com/me/gaie.git")
	gitfixture.Git(t, out, "config", "user.name", "Me")
	hook := filepath.Join(out, ".git", "hooks", "pre-push")
	require.NoError(t, os.MkdirAll(filepath.Dir(hook), 0o755))
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755))

	res, err := applyPatches(context.Background(), r2, p2, cloneBase(t, base2), out, Options{Branch: "epp-build/v2"})
	require.NoError(t, err)
	require.False(t, res.InPlace, "another upstream replaces the tree")
	assert.Empty(t, res.Backup, "a clean tree needs no backup")
	assert.Equal(t, []string{".git/config", ".git/hooks"}, res.Kept)
	assert.Equal(t, "https://example.com/me/gaie.git", gitfixture.Git(t, out, "remote", "get-url", "mine"))
	assert.Equal(t, "Me", gitfixture.Git(t, out, "config", "user.name"))
	fi, err := os.Stat(hook)
	require.NoError(t, err, "the hook is kept")
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
	assert.Equal(t, res.Record.Head, gitfixture.Git(t, out, "rev-parse", "HEAD"))
	assert.Empty(t, gitfixture.Git(t, out, "status", "--porcelain", "--untracked-files=all"))
}
