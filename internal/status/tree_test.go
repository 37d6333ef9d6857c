package status

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/outdir"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

func TestAFreshTreeIsCurrentWithEmptyLists(t *testing.T) {
	f := newFixture(t)
	out := f.applied(t)
	// An untracked file nothing writes is the user's: apply keeps it.
	require.NoError(t, os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine\n"), 0o644))

	tree, text := f.tree(t, out)
	assert.True(t, tree.Current)
	assert.Contains(t, text, "tree "+out+": current for v1\n")
	data, err := json.Marshal(tree)
	require.NoError(t, err)
	for _, list := range []string{"reasons", "modified", "untrackedInTheWay", "commits", "next"} {
		assert.Contains(t, string(data), `"`+list+`":[]`, "lists are empty, never null")
	}
}

// Issue 34: a tree with a modified file was reported current, and apply
// then refused it.
func TestAModifiedFileIsNamedAndTheTreeIsNotCurrent(t *testing.T) {
	f := newFixture(t)
	out := f.applied(t)
	require.NoError(t, os.WriteFile(filepath.Join(out, "b.txt"), []byte("my edit\n"), 0o644))

	tree, text := f.tree(t, out)
	assert.False(t, tree.Current)
	assert.Equal(t, []string{"b.txt"}, tree.Modified)
	assert.Empty(t, tree.Reasons, "the series is the recipe's")
	assert.Contains(t, text, "tree "+out+": not current for v1\n  modified: b.txt\n")
	assert.Contains(t, text, "git -C "+out+" add -A && git -C "+out+" commit && epp-build export --dir "+out+" --to "+filepath.Join(f.root, "v1"))
	assert.Contains(t, text, "epp-build apply --version v1 --out "+out+" --force")

	// The same check as apply's: apply refuses the tree status names.
	err := f.apply(t.Context(), f.recipe(t), out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "b.txt")
}

func TestAnUntrackedFileWhereTheRecipeWritesIsNamed(t *testing.T) {
	f := newFixture(t)
	out := f.applied(t)
	// The recipe now adds c.txt, and the tree holds an untracked c.txt.
	f.writeSeries(t, map[string]string{
		"a.txt": strings.Replace(gitfixture.NumberedLines("a", 10), "a 1 line\n", "a = series\n", 1),
		"c.txt": "from the series\n",
	}, "Route a")
	require.NoError(t, os.WriteFile(filepath.Join(out, "c.txt"), []byte("mine\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine\n"), 0o644))

	tree, text := f.tree(t, out)
	assert.False(t, tree.Current)
	assert.Equal(t, []string{"c.txt"}, tree.InTheWay, "notes.txt is not in the way")
	assert.Empty(t, tree.Modified)
	assert.Contains(t, text, "untracked where the recipe's patches write (a re-apply refuses them): c.txt\n")
	assert.Contains(t, text, "patch 0001-Route-a.patch changed")
	assert.Contains(t, text, "move or delete the untracked files in the way in "+out)

	err := f.apply(t.Context(), f.recipe(t), out)
	require.Error(t, err, "apply refuses what status names")
	assert.Contains(t, err.Error(), "c.txt")
}

func TestACommitOnTopIsNamedAsAMovedHead(t *testing.T) {
	f := newFixture(t)
	out := f.applied(t)
	applied := strings.TrimSpace(gitfixture.Git(t, out, "rev-parse", "HEAD"))
	require.NoError(t, os.WriteFile(filepath.Join(out, "b.txt"), []byte("my edit\n"), 0o644))
	gitfixture.Git(t, out, "commit", "-q", "-am", "My own change")
	head := strings.TrimSpace(gitfixture.Git(t, out, "rev-parse", "HEAD"))

	tree, text := f.tree(t, out)
	assert.False(t, tree.Current)
	assert.True(t, tree.HeadMoved)
	assert.Equal(t, head, tree.Head)
	assert.Equal(t, applied, tree.AppliedHead)
	require.Len(t, tree.Commits, 1)
	assert.Equal(t, head, tree.Commits[0].Hash)
	assert.Equal(t, "My own change", tree.Commits[0].Subject)
	assert.Empty(t, tree.Modified, "the change is committed")
	assert.Contains(t, text, "  HEAD moved: at "+head[:12]+", apply left it at "+applied[:12]+"\n")
	assert.Contains(t, text, "  commit apply did not make: "+head[:12]+" \"My own change\"\n")
	assert.Contains(t, text, "epp-build export --dir "+out+" --to ")
	assert.NotContains(t, text, "git -C "+out+" add -A", "nothing is left to commit")
}

// HEAD reset to an earlier commit of the series loses no work, but the
// tree is not what the recipe gives: reported, with the way back.
func TestAHeadMovedBackIsNamed(t *testing.T) {
	f := newFixture(t)
	out := f.applied(t)
	applied := strings.TrimSpace(gitfixture.Git(t, out, "rev-parse", "HEAD"))
	gitfixture.Git(t, out, "reset", "-q", "--hard", "HEAD~1")

	tree, text := f.tree(t, out)
	assert.False(t, tree.Current)
	assert.True(t, tree.HeadMoved)
	assert.Empty(t, tree.Commits)
	assert.Contains(t, text, "  HEAD moved: at "+f.base[:12]+", apply left it at "+applied[:12]+"\n")
	assert.Contains(t, text, "git -C "+out+" reset --hard "+applied)
}

// Names from the tree are escaped in text: a file name may hold a
// terminal control.
func TestTreeNamesAreEscaped(t *testing.T) {
	f := newFixture(t)
	out := f.applied(t)
	name := "b\x1b[2J.txt"
	gitfixture.WriteFiles(t, out, map[string]string{name: "x\n"})
	gitfixture.Git(t, out, "add", name)

	tree, text := f.tree(t, out)
	assert.Equal(t, []string{name}, tree.Modified, "JSON keeps the name as it is")
	assert.NotContains(t, text, "\x1b")
	assert.Contains(t, text, "modified: b")
}

// A re-apply killed half way leaves its journal: the tree is part old,
// part new, and apply completes it first; status says so and nothing else.
func TestAnInterruptedReapplyIsNamed(t *testing.T) {
	f := newFixture(t)
	out := f.applied(t)
	rec, err := patchset.ReadRecord(out)
	require.NoError(t, err)
	require.NoError(t, outdir.WriteJournal(out, &outdir.Journal[patchset.Record]{Head: rec.Head, Branch: "epp-build/v1", Record: rec}))

	tree, text := f.tree(t, out)
	assert.False(t, tree.Current)
	assert.True(t, tree.Interrupted)
	assert.Contains(t, text, "  a re-apply was interrupted half way")
	assert.Equal(t, []string{"epp-build apply --version v1 --out " + out + "  # completes the interrupted re-apply, then run status again"}, tree.Next)

	require.NoError(t, f.apply(t.Context(), f.recipe(t), out))
	tree, _ = f.tree(t, out)
	assert.True(t, tree.Current, "apply completed it")
}
