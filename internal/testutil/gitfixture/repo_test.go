package gitfixture

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRepoCommitsTagsAndModes(t *testing.T) {
	r := New(t)
	first := r.Commit(t, "first", map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n"})
	r.WriteExec(t, "run.sh", "#!/bin/sh\n")
	r.Symlink(t, "link", "a.txt")
	second := r.Commit(t, "second", map[string]string{"dir/b.txt": ""})
	assert.NotEqual(t, first, second)
	assert.Equal(t, "a.txt\nlink\nrun.sh", r.Git(t, "ls-tree", "--name-only", second))
	assert.Equal(t, "100755", r.Git(t, "ls-tree", "--format=%(objectmode)", second, "run.sh"))
	assert.Equal(t, "120000", r.Git(t, "ls-tree", "--format=%(objectmode)", second, "link"))

	r.Tag(t, "v1", first, true)
	r.Tag(t, "v1-light", first, false)
	assert.Equal(t, "tag", r.Git(t, "cat-file", "-t", "v1"))
	assert.Equal(t, "commit", r.Git(t, "cat-file", "-t", "v1-light"))
	assert.Equal(t, first, r.RevParse(t, "v1^{commit}"))
	r.MoveTag(t, "v1", second, true)
	assert.Equal(t, second, r.RevParse(t, "v1^{commit}"))
}

// TestRepoIsDeterministic: the same steps give the same hashes.
func TestRepoIsDeterministic(t *testing.T) {
	build := func() string {
		r := New(t)
		r.Commit(t, "one", map[string]string{"x": "1\n"})
		return r.Commit(t, "two", map[string]string{"x": "2\n"})
	}
	assert.Equal(t, build(), build())
}

func TestServeHTTPAndFileURL(t *testing.T) {
	r := New(t)
	commit := r.Commit(t, "only", map[string]string{"f": "content\n"})
	base := ServeHTTP(t, filepath.Dir(r.Dir))
	for name, url := range map[string]string{"http": r.HTTPURL(base), "file": r.FileURL()} {
		t.Run(name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "clone")
			cmd := exec.Command("git", "clone", "--quiet", "--depth", "1", url, dst)
			cmd.Env = Env()
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			data, err := os.ReadFile(filepath.Join(dst, "f"))
			require.NoError(t, err)
			assert.Equal(t, "content\n", string(data))
			head, err := exec.Command("git", "-C", dst, "rev-parse", "HEAD").Output()
			require.NoError(t, err)
			assert.Equal(t, commit+"\n", string(head))
		})
	}
}
