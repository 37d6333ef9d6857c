package gitfixture

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/testenv"
)

// Git runs git in dir (the current folder when dir is "") as TryGit does
// and fails the test when git fails.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	testenv.Tool(t, "git", "tests drive the git CLI")
	out, err := TryGit(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TryGit runs git in dir with Env and every commit and tag dated
// baseTime, so ids repeat from run to run, and returns its trimmed
// output. Standard error is part of the output, so that a test sees the
// warnings git prints there (fsck's, for one). Use it where git is
// expected to refuse.
func TryGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	date := baseTime.Format(time.RFC3339)
	cmd.Env = append(Env(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// WriteFiles writes files (path -> content) under dir, creating folders.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// NumberedLines is n lines "PREFIX i line": text whose every line is
// distinct, so a hunk's context can only match in one place.
func NumberedLines(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d line\n", prefix, i)
	}
	return b.String()
}
