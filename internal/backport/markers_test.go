package backport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/patchset"
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

// A hunk that still fits goes in (at its new place); one that does not
// becomes a diff3 block; a new file that exists goes to a .rej file.
func TestMarkConflictsAppliesWhatFitsAndMarksTheRest(t *testing.T) {
	dir := t.TempDir()
	upstream := "zero\none changed\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte(upstream), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.txt"), []byte("already here\n"), 0o644))
	ps, err := patchset.Parse("0001-x.patch", []byte(twoHunks))
	require.NoError(t, err)

	marked, err := markConflicts(dir, ps[0])
	require.NoError(t, err)
	assert.Equal(t, []string{"f.txt", "new.txt.rej"}, marked)
	got, err := os.ReadFile(filepath.Join(dir, "f.txt"))
	require.NoError(t, err)
	assert.Equal(t, "zero\n<<<<<<< ours (new upstream)\none changed\ntwo\n||||||| base (old pin)\none\ntwo\n=======\nONE\ntwo\n>>>>>>> patch (0001-x.patch)\n"+
		"three\nfour\nfive\nsix\nseven\neight\nNINE\n", string(got))
	rej, err := os.ReadFile(filepath.Join(dir, "new.txt.rej"))
	require.NoError(t, err)
	assert.Contains(t, string(rej), "+new\n")

	left, err := markersLeft(dir, marked)
	require.NoError(t, err)
	assert.Equal(t, marked, left)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte(strings.Replace(upstream, "one changed", "ONE changed", 1)), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "new.txt.rej")))
	left, err = markersLeft(dir, marked)
	require.NoError(t, err)
	assert.Empty(t, left)
}
