//go:build integration

package apply

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// Staging the C API double built with cargo (integration tier).

// StageCAPI puts the double's library where the binding links it and keeps
// it out of git: ignored, so `git add -A` and export leave it alone.
func TestStageCAPIPutsTheLibraryWhereTheBindingLinksItAndOutOfGit(t *testing.T) {
	testenv.Tool(t, "cargo", "builds the C API test double")
	repo := gitfixture.New(t)
	binding := filepath.Join("pkg", "dynamo", "pipeline")
	require.NoError(t, os.CopyFS(filepath.Join(repo.Dir, binding), os.DirFS(filepath.Join("..", "..", "ffi", "pipeline"))))
	gitfixture.Git(t, repo.Dir, "add", "-A")
	gitfixture.Git(t, repo.Dir, "commit", "-q", "-m", "binding")

	cache := t.TempDir()
	staged, err := StageCAPI(context.Background(), &recipe.Recipe{Version: "v0"}, repo.Dir, CAPIOptions{
		Src: filepath.Join("..", "..", "testdata", "capi-double"), CacheDir: cache,
	})
	require.NoError(t, err)
	lib := filepath.ToSlash(filepath.Join(binding, "lib", runtime.GOARCH, "libdynamo_llm_capi.a"))
	assert.Equal(t, filepath.ToSlash(binding), staged.BindingDir)
	assert.Contains(t, staged.Files, lib)
	assert.FileExists(t, filepath.Join(repo.Dir, lib))
	assert.Empty(t, gitfixture.Git(t, repo.Dir, "status", "--porcelain"), "the staged files are ignored")
	assert.Contains(t, gitfixture.Git(t, repo.Dir, "status", "--porcelain", "--ignored"), "!! "+filepath.ToSlash(binding)+"/lib/")

	// Staging again lists nothing twice.
	_, err = StageCAPI(context.Background(), &recipe.Recipe{Version: "v0"}, repo.Dir, CAPIOptions{
		Src: filepath.Join("..", "..", "testdata", "capi-double"), CacheDir: cache,
	})
	require.NoError(t, err)
	exclude, err := os.ReadFile(filepath.Join(repo.Dir, ".git", "info", "exclude"))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(exclude), "/"+lib+"\n"))
}
