package backport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/epp-build/epp-build/internal/diff3"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const twoHunks = `From: A <a@example.invalid>
Date: Wed, 23 Jul 2025 10:00:00 +0000
Subject: [PATCH] two hunks and a new file

diff --git a/f.txt b/f.txt
--- a/f.txt
+++ b/f.txt
@@ -1,2 +1,2 @@
-one
+ONE
 two
@@ -8,2 +8,2 @@
 eight
-nine
+NINE
diff --git a/new.txt b/new.txt
new file mode 100644
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+new
`

const fBase = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n"

// knownBase is a base finder that knows f.txt's base only.
func knownBase(f *gitdiff.File) ([]byte, bool, error) {
	if f.OldName == "f.txt" {
		return []byte(fBase), true, nil
	}
	return nil, false, nil
}

var testLabels = diff3.Labels{Ours: "upstream v2", Base: "base: v1", Theirs: "0001-x.patch"}

// The merge marks only the lines both sides changed (upstream's "zero"
// touches them, so it is in the conflict, as git merge-file has it): the patch's other
// hunk goes in; a new file is written and staged; a file added on both
// sides is merged over an empty base.
func TestMergePatchMarksOnlyWhatCollides(t *testing.T) {
	dir := t.TempDir()
	upstream := "zero\none changed\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n"
	gitfixture.WriteFiles(t, dir, map[string]string{"f.txt": upstream})
	gitfixture.Git(t, dir, "init", "-q")
	gitfixture.Git(t, dir, "add", "-A")
	gitfixture.Git(t, dir, "commit", "-qm", "upstream")
	ps, err := patchset.Parse("0001-x.patch", []byte(twoHunks))
	require.NoError(t, err)

	m, err := mergePatch(dir, ps[0], knownBase, testLabels)
	require.NoError(t, err)
	assert.Equal(t, []string{"f.txt"}, m.Marked)
	assert.Equal(t, "<<<<<<< upstream v2\nzero\none changed\n||||||| base: v1\none\n=======\nONE\n>>>>>>> 0001-x.patch\n"+
		"two\nthree\nfour\nfive\nsix\nseven\neight\nNINE\n", readFile(t, filepath.Join(dir, "f.txt")))
	assert.Equal(t, "new\n", readFile(t, filepath.Join(dir, "new.txt")))
	status := gitfixture.Git(t, dir, "status", "--porcelain")
	assert.Contains(t, status, "A  new.txt", "the new file is staged")
	assert.Contains(t, status, "M f.txt", "the conflicted file is not")
	assert.NotContains(t, status, "M  f.txt")

	left, err := markersLeft(dir, m.Marked)
	require.NoError(t, err)
	assert.Equal(t, m.Marked, left)
}

// Without a base, a file's change goes in only where it applies as it
// is; what does not goes to FILE.rej. A file added on both sides merges
// over an empty base, as git's add/add.
func TestMergePatchWithoutABaseRejects(t *testing.T) {
	dir := t.TempDir()
	gitfixture.WriteFiles(t, dir, map[string]string{"f.txt": "one changed\ntwo\n", "new.txt": "already here\n"})
	gitfixture.Git(t, dir, "init", "-q")
	gitfixture.Git(t, dir, "add", "-A")
	gitfixture.Git(t, dir, "commit", "-qm", "upstream")
	ps, err := patchset.Parse("0001-x.patch", []byte(twoHunks))
	require.NoError(t, err)

	noBase := func(*gitdiff.File) ([]byte, bool, error) { return nil, false, nil }
	m, err := mergePatch(dir, ps[0], noBase, testLabels)
	require.NoError(t, err)
	assert.Equal(t, []string{"f.txt.rej", "new.txt"}, m.Marked)
	assert.Contains(t, readFile(t, filepath.Join(dir, "f.txt.rej")), "+NINE\n")
	assert.Equal(t, "one changed\ntwo\n", readFile(t, filepath.Join(dir, "f.txt")), "a rejected file is left as it was")
	assert.Equal(t, "<<<<<<< upstream v2\nalready here\n||||||| base: v1\n=======\nnew\n>>>>>>> 0001-x.patch\n", readFile(t, filepath.Join(dir, "new.txt")))

	require.NoError(t, os.Remove(filepath.Join(dir, "f.txt.rej")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.txt"), []byte("already here\nnew\n"), 0o644))
	left, err := markersLeft(dir, m.Marked)
	require.NoError(t, err)
	assert.Empty(t, left)
}

// A base that the patch does not apply to is not the patch's base: the
// file goes to .rej rather than into a merge of the wrong texts.
func TestMergePatchRefusesAWrongBase(t *testing.T) {
	dir := t.TempDir()
	gitfixture.WriteFiles(t, dir, map[string]string{"f.txt": fBase})
	gitfixture.Git(t, dir, "init", "-q")
	ps, err := patchset.Parse("0001-x.patch", []byte(strings.SplitAfter(twoHunks, "+NINE\n")[0]))
	require.NoError(t, err)
	wrong := func(*gitdiff.File) ([]byte, bool, error) { return []byte("something else\n"), true, nil }
	m, err := mergePatch(dir, ps[0], wrong, testLabels)
	require.NoError(t, err)
	assert.Equal(t, []string{"f.txt.rej"}, m.Marked)
}

// Upstream made the file a symlink: there is no text to merge into, so
// the change goes to .rej and the link is left alone.
func TestMergePatchIntoASymlinkRejects(t *testing.T) {
	dir := t.TempDir()
	gitfixture.WriteFiles(t, dir, map[string]string{"g.txt": fBase})
	require.NoError(t, os.Symlink("g.txt", filepath.Join(dir, "f.txt")))
	gitfixture.Git(t, dir, "init", "-q")
	ps, err := patchset.Parse("0001-x.patch", []byte(strings.SplitAfter(twoHunks, "+NINE\n")[0]))
	require.NoError(t, err)
	m, err := mergePatch(dir, ps[0], knownBase, testLabels)
	require.NoError(t, err)
	assert.Equal(t, []string{"f.txt.rej"}, m.Marked)
	assert.Equal(t, fBase, readFile(t, filepath.Join(dir, "g.txt")))
}
