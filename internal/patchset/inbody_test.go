package patchset

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const inBodyDiff = `diff --git a/f.txt b/f.txt
--- a/f.txt
+++ b/f.txt
@@ -1 +1 @@
-one
+two
`

// TestInBodyHeadersAreReadAsGitAmReadsThem gives git am and Parse the same
// file and wants the same author, subject, date and body from both.
func TestInBodyHeadersAreReadAsGitAmReadsThem(t *testing.T) {
	mail := "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n" +
		"From: Mail Sender <sender@example.org>\nDate: Wed, 23 Jul 2025 10:00:00 +0000\nSubject: [PATCH] Mail subject\n\n"
	for name, body := range map[string]string{
		"from":               "From: Real Author <real@example.com>\n\nThe body.\n",
		"from and subject":   "From: Real Author <real@example.com>\nSubject: [PATCH] Real subject\n\nThe body.\n",
		"any case, and date": "from: Real Author <real@example.com>\nDATE: Thu, 24 Jul 2025 11:00:00 +0200\n\nThe body.\n",
		"ended by text":      "Subject: Real subject\nThe body starts here.\n",
		"continued":          "Subject: Real subject\n  that goes on\n\nThe body.\n",
		"none":               "The body.\n\nFrom: not a header here\n",
	} {
		t.Run(name, func(t *testing.T) {
			text := mail + body + "---\n" + inBodyDiff
			ps, err := Parse("x.patch", []byte(text))
			require.NoError(t, err)
			h := ps[0].Header

			repo := gitfixture.New(t)
			repo.Commit(t, "base", map[string]string{"f.txt": "one\n"})
			file := filepath.Join(t.TempDir(), "x.patch")
			require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
			repo.Git(t, "am", "-q", file)
			assert.Equal(t, repo.Git(t, "log", "-1", "--format=%an%n%ae%n%s%n%at%n%b"),
				strings.Join([]string{h.Author.Name, h.Author.Email, h.Title, strconv.FormatInt(h.AuthorDate.Unix(), 10), strings.TrimSpace(h.Body)}, "\n"))
		})
	}
}
