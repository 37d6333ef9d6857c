package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

func TestGitCommitOfTheCAPICheckout(t *testing.T) {
	testenv.Tool(t, "git", "records the C API checkout's commit")
	dir := t.TempDir()
	assert.Empty(t, gitCommit(context.Background(), dir), "not a checkout")

	gitfixture.Git(t, dir, "init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte("[package]\n"), 0o644))
	gitfixture.Git(t, dir, "add", ".")
	gitfixture.Git(t, dir, "commit", "-q", "-m", "c")
	head := gitfixture.Git(t, dir, "rev-parse", "HEAD")
	assert.Equal(t, head, gitCommit(context.Background(), dir))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte("[package]\nname='x'\n"), 0o644))
	assert.Equal(t, head+"-dirty", gitCommit(context.Background(), dir))
}
