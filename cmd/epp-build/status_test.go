package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A rebase started with --dir and stopped: status and --abort find it
// without --dir and say where they found it.
func TestStatusAndResumeFindTheStoppedRebaseWithoutDir(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)
	work := filepath.Join(t.TempDir(), "rebase")

	r := run(t, cache, "--patches", patches, "status")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "no rebase in progress")

	r = run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--dir", work)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)

	r = run(t, cache, "--patches", patches, "status")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "rebase of v9 as v10 onto v2 in "+work)
	assert.Contains(t, r.stdout, "stopped at a conflict in 0002-Route-b.patch (marked: b.txt)")
	assert.Contains(t, r.stdout, "epp-build rebase --continue --dir "+work)

	r = run(t, cache, "--patches", patches, "status", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		Rebase struct {
			Dir, StoppedAt, Reason string
			Done, Total            int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	assert.Equal(t, work, rep.Rebase.Dir)
	assert.Equal(t, "0002-Route-b.patch", rep.Rebase.StoppedAt)
	assert.Equal(t, "conflict", rep.Rebase.Reason)
	assert.Equal(t, 1, rep.Rebase.Done)
	assert.Equal(t, 4, rep.Rebase.Total)

	r = run(t, cache, "--patches", patches, "rebase", "--abort")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "found the stopped rebase in "+work+" (the --dir the rebase was started with")
	assert.NoDirExists(t, work)
	r = run(t, cache, "--patches", patches, "rebase", "--continue")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "no rebase in progress for "+patches)
}

// status --out says whether an applied tree is current for its recipe.
func TestStatusSaysWhetherATreeIsCurrent(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	dir := protectedSeries(t, u)
	out := filepath.Join(t.TempDir(), "out")
	r := run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)

	r = run(t, cache, "--patches", filepath.Dir(dir), "status", "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "tree "+out+": current for v9.9.9")

	changed := strings.Replace(mainPatch, `+	println("dynamo")`, `+	println("dynamo!")`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "0002-main.patch"), []byte(changed), 0o644))
	r = run(t, cache, "--patches", filepath.Dir(dir), "status", "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "tree "+out+": not current for v9.9.9")
	assert.Contains(t, r.stdout, "patch 0002-main.patch changed")
}

// A failing --exec command stops the rebase with exit 6; status names
// the command and the way on.
func TestRebaseExecFailureStopsAndStatusSaysSo(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)

	r := run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--exec", "echo checking >&2; exit 3")
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "checking\n", "the command's output is on stderr")
	assert.Contains(t, r.stderr, `--exec "echo checking >&2; exit 3" failed after 0001-Route-a.patch: exit status 3`)

	r = run(t, cache, "--patches", patches, "status")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `stopped: --exec "echo checking >&2; exit 3" failed after 0001-Route-a.patch`)
	assert.Contains(t, r.stdout, "epp-build rebase --continue --dir ")

	r = run(t, cache, "--patches", patches, "rebase", "--continue", "--exec", "true")
	assert.Equal(t, 2, r.code, "--exec belongs to the start")
	r = run(t, cache, "--patches", patches, "rebase", "--abort")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "found the stopped rebase in ")
}

// statusJSON is what these tests read of `status -o json`.
type statusJSON struct {
	Trees []struct {
		Dir, Version, Head, AppliedHead string
		Current, HeadMoved              bool
		Reasons, Modified, Next         []string
		InTheWay                        []string `json:"untrackedInTheWay"`
		Commits                         []struct{ Hash, Subject string }
	}
	Pick *struct {
		Dir, Version, StoppedAt, Title string
		Marked, Next                   []string
	}
}

func statusOf(t *testing.T, cache string, args ...string) statusJSON {
	t.Helper()
	r := run(t, cache, append(args, "status", "-o", "json")...)
	require.Equal(t, 0, r.code, r.stderr)
	var rep statusJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	return rep
}

// Issue 34: a tree whose `git status` shows a modified file was reported
// current, and apply then refused it (exit 4).
func TestStatusNamesAModifiedFileAndTheTreeIsNotCurrent(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	dir := protectedSeries(t, u)
	out := filepath.Join(t.TempDir(), "out")
	r := run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	appendTo(t, filepath.Join(out, "src", "main.go"), "// mine\n")

	r = run(t, cache, "--patches", filepath.Dir(dir), "status", "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "tree "+out+": not current for v9.9.9\n  modified: src/main.go\n")
	assert.Contains(t, r.stdout, "epp-build export --dir "+out+" --to "+dir)

	rep := statusOf(t, cache, "--patches", filepath.Dir(dir), "--out", out)
	require.Len(t, rep.Trees, 1)
	tree := rep.Trees[0]
	assert.False(t, tree.Current)
	assert.Equal(t, []string{"src/main.go"}, tree.Modified)
	assert.Equal(t, []string{}, tree.InTheWay)
	assert.Equal(t, []string{}, tree.Reasons)
	assert.False(t, tree.HeadMoved)
	assert.NotEmpty(t, tree.Next)

	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	assert.Equal(t, 4, r.code, "apply refuses the tree status calls not current: %s", r.stderr)
}

// An untracked file where the recipe's series now writes is named: a
// re-apply refuses it. Untracked files elsewhere are the user's and kept.
func TestStatusNamesAnUntrackedFileInTheWay(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	dir := protectedSeries(t, u)
	out := filepath.Join(t.TempDir(), "out")
	r := run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "0003-notes.patch"), []byte(newFilePatch), 0o644))
	appendTo(t, filepath.Join(dir, "recipe.yaml"), "  - 0003-notes.patch\n")
	require.NoError(t, os.WriteFile(filepath.Join(out, "NOTES.md"), []byte("my notes\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine\n"), 0o644))

	r = run(t, cache, "--patches", filepath.Dir(dir), "status", "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "tree "+out+": not current for v9.9.9\n")
	assert.Contains(t, r.stdout, "  untracked where the recipe's patches write (a re-apply refuses them): NOTES.md\n")
	assert.Contains(t, r.stdout, "  patch 0003-notes.patch is new\n")
	assert.NotContains(t, r.stdout, "notes.txt")

	rep := statusOf(t, cache, "--patches", filepath.Dir(dir), "--out", out)
	require.Len(t, rep.Trees, 1)
	assert.Equal(t, []string{"NOTES.md"}, rep.Trees[0].InTheWay)
	assert.Equal(t, []string{}, rep.Trees[0].Modified)

	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	assert.Equal(t, 4, r.code, r.stderr)
	assert.Contains(t, r.stderr, "NOTES.md")
}

// A commit added on top of what apply made moves HEAD: status names the
// commit and where apply left HEAD.
func TestStatusNamesAMovedHead(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	dir := protectedSeries(t, u)
	out := filepath.Join(t.TempDir(), "out")
	r := run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	applied := strings.TrimSpace(gitfixture.Git(t, out, "rev-parse", "HEAD"))
	appendTo(t, filepath.Join(out, "README.md"), "my note\n")
	gitfixture.Git(t, out, "commit", "-q", "-am", "Note in the README")
	head := strings.TrimSpace(gitfixture.Git(t, out, "rev-parse", "HEAD"))

	r = run(t, cache, "--patches", filepath.Dir(dir), "status", "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "tree "+out+": not current for v9.9.9\n")
	assert.Contains(t, r.stdout, "  HEAD moved: at "+head[:12]+", apply left it at "+applied[:12]+"\n")
	assert.Contains(t, r.stdout, "  commit apply did not make: "+head[:12]+" \"Note in the README\"\n")

	rep := statusOf(t, cache, "--patches", filepath.Dir(dir), "--out", out)
	require.Len(t, rep.Trees, 1)
	tree := rep.Trees[0]
	assert.True(t, tree.HeadMoved)
	assert.Equal(t, head, tree.Head)
	assert.Equal(t, applied, tree.AppliedHead)
	require.Len(t, tree.Commits, 1)
	assert.Equal(t, "Note in the README", tree.Commits[0].Subject)
	assert.Equal(t, []string{}, tree.Modified)
}

// Issue 34: status said "no pick in progress (a pick never stops)" while
// a pick was stopped at a conflict.
func TestStatusNamesAStoppedPickAndTheNextCommand(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)
	fix := gitfixture.NewAt(t, filepath.Join(t.TempDir(), "fixes"))
	fix.Git(t, "fetch", "-q", u.repo.Dir, "v1")
	fix.Git(t, "checkout", "-q", "FETCH_HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(fix.Dir, "b.txt"), []byte(strings.Replace(gitfixture.NumberedLines("b", 20), "b 1 line\n", "b 1 fixed\n", 1)), 0o644))
	fix.Git(t, "commit", "-q", "-am", "Fix b 1")
	// A commit picked --from is named by its id.
	name := fix.RevParse(t, "HEAD")[:12] + ".patch"

	r := run(t, cache, "status", "--help")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "never stops")
	assert.Contains(t, r.stdout, "pick --continue")

	r = run(t, cache, "--patches", patches, "pick", "--version", "v9", "--from", fix.Dir,
		"--upstream-link", "https://example.com/pull/9", "--reason", "b was wrong", "HEAD")
	require.Equal(t, 6, r.code, r.stdout+r.stderr)

	r = run(t, cache, "--patches", patches, "status")
	require.Equal(t, 0, r.code, r.stderr)
	rep := statusOf(t, cache, "--patches", patches)
	require.NotNil(t, rep.Pick, "the pick is found in its default work tree")
	work := rep.Pick.Dir
	assert.Contains(t, r.stdout, "pick into v9 in "+work+" (found in the default pick work tree for "+patches+"): 0 of 1 picks in\n")
	assert.Contains(t, r.stdout, "  stopped at a conflict in "+name+" \"Fix b 1\" (marked: b.txt)\n")
	assert.Contains(t, r.stdout, "  epp-build pick --continue --dir "+work+"\n")
	assert.Contains(t, r.stdout, "  epp-build pick --abort --dir "+work)
	assert.NotContains(t, r.stdout, "never stops")
	assert.Equal(t, "v9", rep.Pick.Version)
	assert.Equal(t, name, rep.Pick.StoppedAt)
	assert.Equal(t, []string{"b.txt"}, rep.Pick.Marked)
	assert.Contains(t, rep.Pick.Next, "epp-build pick --continue --dir "+work)

	// The next command status gives works.
	r = run(t, cache, "--patches", patches, "pick", "--abort", "--dir", work)
	require.Equal(t, 0, r.code, r.stderr)
	rep = statusOf(t, cache, "--patches", patches)
	assert.Nil(t, rep.Pick)
}
