package seriesedit

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/export"
	"github.com/epp-build/epp-build/internal/patchset"
)

// throughPatch commits a change with msg, writes it as a patch file the
// way the series edits do and parses it back as apply does: the message
// a later apply commits.
func throughPatch(t *testing.T, msg string) string {
	t.Helper()
	repo, err := git.Init(memory.NewStorage(), memfs.New())
	require.NoError(t, err)
	wt, err := repo.Worktree()
	require.NoError(t, err)
	sig := &object.Signature{Name: "A", Email: "a@example.invalid", When: time.Unix(1700000000, 0).UTC()}
	for i, content := range []string{"one\n", "two\n"} {
		f, err := wt.Filesystem.Create("f.txt")
		require.NoError(t, err)
		_, err = f.Write([]byte(content))
		require.NoError(t, err)
		require.NoError(t, f.Close())
		_, err = wt.Add("f.txt")
		require.NoError(t, err)
		m := "base"
		if i == 1 {
			m = msg
		}
		_, err = wt.Commit(m, &git.CommitOptions{Author: sig, Committer: sig})
		require.NoError(t, err)
	}
	head, err := repo.Head()
	require.NoError(t, err)
	c, err := repo.CommitObject(head.Hash())
	require.NoError(t, err)
	data, err := export.FormatCommit(repo.Storer, c)
	require.NoError(t, err)
	patches, err := patchset.Parse("p.patch", data)
	require.NoError(t, err)
	require.Len(t, patches, 1, "the message became more than one patch:\n%s", data)
	p := patches[0]
	require.Len(t, p.Files, 1, "the message changed the files the patch touches:\n%s", data)
	if p.Header.Body == "" {
		return p.Header.Title
	}
	return p.Header.Title + "\n\n" + p.Header.Body
}

// A reworded message is either refused before anything is written, or
// comes back from the patch file as it was given.
func TestRewordMessageRoundTripsOrIsRefused(t *testing.T) {
	for name, m := range map[string]struct {
		msg     Message
		refused string
	}{
		"prose":                {msg: Message{Subject: "Route b", Body: "Why.\n\nMore why.\n----- a rule\n  --- indented"}},
		"a git diff":           {msg: Message{Subject: "Route b", Body: "See:\ndiff --git a/evil.txt b/evil.txt\nnew file mode 100644\n--- /dev/null\n+++ b/evil.txt\n@@ -0,0 +1 @@\n+owned"}, refused: `body line 2 "diff --git a/evil.txt b/evil.txt" starts a diff`},
		"an in-body author":    {msg: Message{Subject: "Route b", Body: "From: Else <else@example.org>\n\nWhy."}, refused: `body line 1 "From: Else <else@example.org>" is an in-body header`},
		"a --- line":           {msg: Message{Subject: "Route b", Body: "Why.\n---\nLost."}, refused: `body line 2 "---" ends the message where git am reads the patch`},
		"a --- line with text": {msg: Message{Subject: "Route b", Body: "Why.\n--- lost too"}, refused: `body line 2 "--- lost too" ends the message`},
		"a subject not UTF-8":  {msg: Message{Subject: "Route \xff b"}, refused: `subject "Route \xff b" is not UTF-8`},
		"a body not UTF-8":     {msg: Message{Subject: "Route b", Body: "Why \xc3"}, refused: "body is not UTF-8"},
		"a subject escape":     {msg: Message{Subject: "Route \x1b[2J b"}, refused: `subject "Route \x1b[2J b" has a control character`},
		"a body escape":        {msg: Message{Subject: "Route b", Body: "Why.\nClear \x1b[2J"}, refused: "body line 2 has a control character"},
	} {
		t.Run(name, func(t *testing.T) {
			err := checkMessage("0002-Route-b.patch", m.msg)
			if m.refused != "" {
				var refused *patchset.ParseError
				require.True(t, errors.As(err, &refused), "accepted: %v", err)
				assert.ErrorContains(t, err, "patch 0002-Route-b.patch: the new "+m.refused)
				return
			}
			require.NoError(t, err)
			msg := message("Old subject\n\nOld prose.\n\nReason: r\n", m.msg, nil)
			assert.Equal(t, strings.TrimRight(msg, "\n"), throughPatch(t, msg), "an accepted message must come back as written")
		})
	}
}

// Why a "---" line is refused rather than kept: the patch file git
// format-patch (and export) writes for it loses the line and the rest of
// the body, in git am as in apply.
func TestADashLineDoesNotSurviveAPatch(t *testing.T) {
	msg := "Route b\n\nWhy.\n---\nLost."
	assert.Equal(t, "Route b\n\nWhy.", throughPatch(t, msg))
}
