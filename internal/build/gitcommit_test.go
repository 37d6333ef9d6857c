package build

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
)

func TestGitCommitOfTheCAPICheckout(t *testing.T) {
	testenv.Tool(t, "git", "records the C API checkout's commit")
	dir := t.TempDir()
	assert.Empty(t, gitCommit(context.Background(), dir), "not a checkout")

	run := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte("[package]\n"), 0o644))
	run("add", ".")
	run("commit", "-q", "-m", "c")
	head := run("rev-parse", "HEAD")
	assert.Equal(t, head, gitCommit(context.Background(), dir))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte("[package]\nname='x'\n"), 0o644))
	assert.Equal(t, head+"-dirty", gitCommit(context.Background(), dir))
}
