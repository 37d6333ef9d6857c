package backport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitDiff is `git diff` output, as Dynamo ships its epp-patches: no
// header at all.
const gitDiff = `diff --git a/d.txt b/d.txt
index 0000000..1111111 100644
--- a/d.txt
+++ b/d.txt
@@ -19,2 +19,3 @@ d 18 line
 d 19 line
 d 20 line
+appended by dynamo
`

// unifiedDiff is ` + "`diff -u a b`" + ` output of the same change.
const unifiedDiff = `--- a/d.txt	2026-03-04 05:06:07.000000000 +0000
+++ b/d.txt	2026-03-04 05:06:08.000000000 +0000
@@ -19,2 +19,3 @@
 d 19 line
 d 20 line
+appended by dynamo
`

func writePatch(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

func TestCollectTakesAPlainDiffWithTheHeaderFromFlags(t *testing.T) {
	for name, text := range map[string]string{"git diff": gitDiff, "diff -u": unifiedDiff} {
		t.Run(name, func(t *testing.T) {
			file := writePatch(t, "gaie.patch", text)
			picks, err := Collect([]string{file}, PickOptions{
				Upstream: "https://example.com/dynamo", Reason: "dynamo needs it",
				Author: "Jörg Müller <joerg@example.org>", Date: fixDate, Subject: "Append to d",
			})
			require.NoError(t, err)
			require.Len(t, picks, 1)
			h := picks[0].Header
			assert.Equal(t, "Jörg Müller <joerg@example.org>", h.Author.Name+" <"+h.Author.Email+">")
			assert.True(t, fixWhen.Equal(h.AuthorDate), "%s", h.AuthorDate)
			assert.Equal(t, "Append to d", h.Title)
			assert.Equal(t, "dynamo needs it\n\nUpstream: https://example.com/dynamo\nReason: dynamo needs it", strings.TrimRight(h.Body, "\n"), "the reason is the body too: the patch says why")
			require.Len(t, picks[0].Files, 1)
			assert.Equal(t, "d.txt", picks[0].Files[0].OldName, "a/ and b/ are not part of the path")
			assert.Equal(t, "d.txt", picks[0].Files[0].NewName)
		})
	}
}

func TestCollectDefaultsAPlainDiffsHeader(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Git(t, "config", "user.name", "Ann Example")
	repo.Git(t, "config", "user.email", "ann@example.com")
	file := writePatch(t, "gaie.patch", gitDiff)
	before := time.Now().UTC().Truncate(time.Second)

	picks, err := Collect([]string{file}, PickOptions{Upstream: "u", Reason: "r", ConfigDir: filepath.Join(repo.Dir)})
	require.NoError(t, err)
	h := picks[0].Header
	assert.Equal(t, "Ann Example <ann@example.com>", h.Author.Name+" <"+h.Author.Email+">", "git's identity where pick runs")
	assert.Equal(t, "Apply gaie.patch", h.Title)
	assert.False(t, h.AuthorDate.Before(before), "%s", h.AuthorDate)
	assert.Equal(t, time.UTC, h.AuthorDate.Location())

	picks, err = Collect([]string{file}, PickOptions{Upstream: "u", Reason: "r", ConfigDir: repo.Dir, Date: "2026-03-04 05:06:07 +0530"})
	require.NoError(t, err)
	assert.True(t, fixWhen.Equal(picks[0].Header.AuthorDate), "a git date")
}

func TestCollectRefusesAPlainDiffWithoutAnAuthor(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	file := writePatch(t, "gaie.patch", gitDiff)
	_, err := Collect([]string{file}, PickOptions{Upstream: "u", Reason: "r", ConfigDir: t.TempDir()})
	var usage *UsageError
	require.ErrorAs(t, err, &usage)
	assert.ErrorContains(t, err, `give --author "Name <email>"`)

	_, err = Collect([]string{file}, PickOptions{Upstream: "u", Reason: "r", Author: "nobody"})
	assert.ErrorContains(t, err, `--author "nobody": want "Name <email>"`)
	_, err = Collect([]string{file}, PickOptions{Upstream: "u", Reason: "r", Author: "A <a@example.com>", Date: "yesterday"})
	assert.ErrorContains(t, err, `--date "yesterday": want RFC 3339`)
}

func TestCollectRefusesHeaderFlagsForAPatchWithAHeader(t *testing.T) {
	file := writePatch(t, "fix.patch", twoHunks)
	_, err := Collect([]string{file}, PickOptions{Upstream: "u", Reason: "r", Subject: "mine"})
	var usage *UsageError
	require.ErrorAs(t, err, &usage)
	assert.ErrorContains(t, err, "--subject is for plain diffs; "+file+" has its own author, date and subject")
	_, err = Collect([]string{"HEAD"}, PickOptions{Repo: t.TempDir(), Reason: "r", Author: "A <a@example.com>"})
	require.ErrorAs(t, err, &usage)
	assert.ErrorContains(t, err, "--author is for plain diffs")

	// A patch whose header is incomplete is still that, not a plain diff.
	_, err = Collect([]string{writePatch(t, "half.patch", "From: A <a@example.invalid>\nSubject: [PATCH] half\n\n"+gitDiff)}, PickOptions{Upstream: "u", Reason: "r", Author: "A <a@example.com>"})
	var parse *patchset.ParseError
	require.ErrorAs(t, err, &parse)
	assert.ErrorContains(t, err, "header needs From:, Date: and Subject:")
}
