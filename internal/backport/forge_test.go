package backport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forgedCommit commits an edit of d.txt in the fix repository with msg
// and author.
func forgedCommit(t *testing.T, dir, author, msg string) string {
	t.Helper()
	path := filepath.Join(dir, "d.txt")
	require.NoError(t, os.WriteFile(path, []byte(readFile(t, path)+"forged\n"), 0o644))
	gitfixture.Git(t, dir, "commit", "-q", "-a", "--author="+author, "-m", msg)
	return gitfixture.Git(t, dir, "rev-parse", "HEAD")
}

func TestCollectFromARepositoryWritesTheCommitPickedAsUpstream(t *testing.T) {
	p := newPins(t)
	dir, _ := fixRepo(t, p, p.v1, "d.txt")
	sha := forgedCommit(t, dir, fixAuthor, "Innocent fix\n\nNothing to see.\n\nupstream: https://evil.example/lower\nUpstream: https://evil.example/pull/1\nReason: trust me")

	picks, err := Collect([]string{sha}, PickOptions{Repo: dir, Reason: "stuck streams"})
	require.NoError(t, err)
	assert.Equal(t, "Nothing to see.\n\nReason: trust me\nUpstream: https://github.com/example/gaie/commit/"+sha+"\nReason: stuck streams",
		strings.TrimRight(picks[0].Header.Body, "\n"), "the commit picked is the Upstream:, and the user's reason is kept")

	// With no web origin there is no link to write: the message's own is
	// not taken instead.
	gitfixture.Git(t, dir, "remote", "set-url", "origin", "/srv/git/gaie")
	_, err = Collect([]string{sha}, PickOptions{Repo: dir, Reason: "stuck streams"})
	assert.ErrorContains(t, err, `pick "Innocent fix": no Upstream: trailer and no --upstream-link`)
}

func TestCollectRefusesAnAuthorWithAControlCharacter(t *testing.T) {
	p := newPins(t)
	dir, _ := fixRepo(t, p, p.v1, "d.txt")
	sha := forgedCommit(t, dir, "Evil\x1b[2J Author <evil@example.org>", "Clear the screen")

	_, err := Collect([]string{sha}, PickOptions{Repo: dir, Reason: "r"})
	var refused *patchset.ParseError
	require.ErrorAs(t, err, &refused)
	assert.ErrorContains(t, err, `commit `+sha[:12]+`: author name "Evil\x1b[2J Author" has a control character`)

	encoded := writePatch(t, "fix.patch", strings.Replace(twoHunks, "From: A <a@example.invalid>", "From: =?UTF-8?q?Ann=0AEvil?= <a@example.invalid>", 1))
	_, err = Collect([]string{encoded}, PickOptions{Upstream: "u", Reason: "r"})
	require.ErrorAs(t, err, &refused)
	assert.ErrorContains(t, err, `patch fix.patch: author name "Ann\nEvil" has a control character`)

	file := writePatch(t, "gaie.patch", gitDiff)
	_, err = Collect([]string{file}, PickOptions{Upstream: "u", Reason: "r", Author: "Ann\nFrom: Evil <evil@example.org>"})
	require.ErrorAs(t, err, &refused)
	assert.ErrorContains(t, err, `--author "Ann\nFrom: Evil <evil@example.org>" has a control character`)
}

func TestCollectRefusesAMessageThatWouldNotStayMessageText(t *testing.T) {
	p := newPins(t)
	dir, _ := fixRepo(t, p, p.v1, "d.txt")
	for name, c := range map[string]struct{ msg, line string }{
		"a git diff": {"Innocent fix\n\nSee the change:\ndiff --git a/evil.txt b/evil.txt\nnew file mode 100644\n--- /dev/null\n+++ b/evil.txt\n@@ -0,0 +1 @@\n+owned",
			`message line 4 "diff --git a/evil.txt b/evil.txt" starts a diff`},
		"a traditional diff": {"Innocent fix\n\n--- a/d.txt\n+++ b/d.txt\n@@ -1 +1 @@\n-d 1 line\n+owned",
			`message line 3 "--- a/d.txt" starts a diff`},
		"an in-body author": {"Innocent fix\n\nFrom: Someone Else <else@example.org>\n\nThe body.",
			`message line 3 "From: Someone Else <else@example.org>" is an in-body header`},
		"a --- line": {"Innocent fix\n\nWhy.\n---\nLost when the patch is read back.",
			`message line 4 "---" ends the message where git am reads the patch`},
	} {
		t.Run(name, func(t *testing.T) {
			sha := forgedCommit(t, dir, fixAuthor, c.msg)
			picks, err := Collect([]string{sha}, PickOptions{Repo: dir, Reason: "r"})
			var refused *patchset.ParseError
			require.ErrorAs(t, err, &refused, "picked: %v", picks)
			assert.ErrorContains(t, err, "commit "+sha[:12]+": "+c.line)
		})
	}

	// Said in the body's text, not at its top, From: is message text.
	sha := forgedCommit(t, dir, fixAuthor, "Fix\n\nReported by mail.\nFrom: a user")
	picks, err := Collect([]string{sha}, PickOptions{Repo: dir, Reason: "r"})
	require.NoError(t, err)
	assert.Equal(t, "Jörg Müller", picks[0].Header.Author.Name)
}
