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

func TestWithoutTrailerDropsOnlyThatKey(t *testing.T) {
	assert.Equal(t, "Why.\n\nReason: r", withoutTrailer("Why.\n\nUpstream: u\nReason: r", "Upstream"))
	assert.Equal(t, "Why.", withoutTrailer("Why.\n\nUPSTREAM: u\n", "Upstream"))
	assert.Equal(t, "", withoutTrailer("Upstream: u", "Upstream"))
	assert.Equal(t, "Upstream: u is cited here.\n\nWhy.", withoutTrailer("Upstream: u is cited here.\n\nWhy.", "Upstream"), "not a trailer block")
}

func TestCollectRefusesAnAuthorWithAControlCharacter(t *testing.T) {
	p := newPins(t)
	dir, _ := fixRepo(t, p, p.v1, "d.txt")
	sha := forgedCommit(t, dir, "Evil\x1b[2J Author <evil@example.org>", "Clear the screen")

	_, err := Collect([]string{sha}, PickOptions{Repo: dir, Reason: "r"})
	var refused *patchset.ParseError
	require.ErrorAs(t, err, &refused)
	assert.ErrorContains(t, err, `commit `+sha[:12]+`: author name "Evil\x1b[2J Author" has a control character`)

	file := writePatch(t, "gaie.patch", gitDiff)
	_, err = Collect([]string{file}, PickOptions{Upstream: "u", Reason: "r", Author: "Ann\nFrom: Evil <evil@example.org>"})
	require.ErrorAs(t, err, &refused)
	assert.ErrorContains(t, err, `--author "Ann\nFrom: Evil <evil@example.org>" has a control character`)
}
