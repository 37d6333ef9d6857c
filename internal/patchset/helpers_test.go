package patchset

import (
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// baseRepo makes a repository whose single commit holds files.
func baseRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	gitfixture.Git(t, dir, "init", "-q", "-b", "main")
	gitfixture.WriteFiles(t, dir, files)
	gitfixture.Git(t, dir, "add", "-A")
	gitfixture.Git(t, dir, "commit", "-q", "-m", "upstream")
	return dir
}

func numbered(n int, prefix string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(prefix)
		b.WriteString(" line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	return b.String()
}
