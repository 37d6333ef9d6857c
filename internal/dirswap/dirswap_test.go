package dirswap

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
}

// tree is every file under dir with its content, and the links.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			require.NoError(t, err)
			out[rel] = "-> " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			out[rel] = string(data)
		}
		return nil
	}))
	return out
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func TestReplaceSwapsInTheEditedCopy(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "v1")
	write(t, dir, map[string]string{"recipe.yaml": "r1", "0001-a.patch": "a", "gen/x.go": "x"})
	require.NoError(t, os.Symlink("gen/x.go", filepath.Join(dir, "link")))

	require.NoError(t, Replace(dir, func(staging string) error {
		assert.True(t, IsTemp(filepath.Base(staging)), staging)
		assert.Equal(t, map[string]string{"recipe.yaml": "r1", "0001-a.patch": "a", "gen/x.go": "x", "link": "-> gen/x.go"}, tree(t, staging), "the edit starts from a copy")
		require.NoError(t, os.Remove(filepath.Join(staging, "0001-a.patch")))
		write(t, staging, map[string]string{"0001-b.patch": "b", "recipe.yaml": "r2"})
		assert.Equal(t, "r1", tree(t, dir)["recipe.yaml"], "dir is untouched until the swap")
		return nil
	}))
	assert.Equal(t, map[string]string{"recipe.yaml": "r2", "0001-b.patch": "b", "gen/x.go": "x", "link": "-> gen/x.go"}, tree(t, dir))
	assert.Equal(t, []string{"v1"}, names(t, parent), "no copy is left beside it")
}

func TestReplaceLeavesDirAsItWasWhenTheEditFails(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "v1")
	write(t, dir, map[string]string{"recipe.yaml": "r1"})
	boom := errors.New("boom")
	err := Replace(dir, func(staging string) error {
		write(t, staging, map[string]string{"recipe.yaml": "half"})
		return boom
	})
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, map[string]string{"recipe.yaml": "r1"}, tree(t, dir))
	assert.Equal(t, []string{"v1"}, names(t, parent))
}

// TestReplaceWithoutExchange takes the two-rename path that systems
// without renameat2 use.
func TestReplaceWithoutExchange(t *testing.T) {
	saved := exchange
	exchange = func(a, b string) error { return errNoExchange }
	t.Cleanup(func() { exchange = saved })
	parent := t.TempDir()
	dir := filepath.Join(parent, "v1")
	write(t, dir, map[string]string{"recipe.yaml": "r1"})
	require.NoError(t, Replace(dir, func(staging string) error {
		write(t, staging, map[string]string{"recipe.yaml": "r2"})
		return nil
	}))
	assert.Equal(t, map[string]string{"recipe.yaml": "r2"}, tree(t, dir))
	assert.Equal(t, []string{"v1"}, names(t, parent))
}

func TestCreateRefusesAnExistingFolder(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "v2")
	require.NoError(t, Create(dir, 0o755, func(staging string) error {
		write(t, staging, map[string]string{"recipe.yaml": "r"})
		return nil
	}))
	assert.Equal(t, map[string]string{"recipe.yaml": "r"}, tree(t, dir))
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm())

	// Even an empty folder made meanwhile is not replaced.
	other := filepath.Join(parent, "v3")
	require.NoError(t, os.Mkdir(other, 0o755))
	err = Create(other, 0o755, func(staging string) error {
		write(t, staging, map[string]string{"recipe.yaml": "r"})
		return nil
	})
	require.Error(t, err)
	assert.Empty(t, tree(t, other))
	assert.Equal(t, []string{"v2", "v3"}, names(t, parent))
}

// TestCleanRepairsWhatAKillLeaves: a kill between the two renames of a
// swap leaves the version only under its old name: Clean puts it back and
// removes the new copy; other leftovers go, a live writer's stay.
func TestCleanRepairsWhatAKillLeaves(t *testing.T) {
	parent := t.TempDir()
	write(t, filepath.Join(parent, ".epp-build-v1.old-123"), map[string]string{"recipe.yaml": "old"})
	write(t, filepath.Join(parent, ".epp-build-v1.new-123"), map[string]string{"recipe.yaml": "new"})
	write(t, filepath.Join(parent, "v2"), map[string]string{"recipe.yaml": "v2"})
	write(t, filepath.Join(parent, ".epp-build-v2.old-9"), map[string]string{"recipe.yaml": "older"})
	write(t, filepath.Join(parent, ".epp-build-v3.new-7"), map[string]string{"recipe.yaml": "live"})
	write(t, filepath.Join(parent, ".hidden"), map[string]string{"keep": "k"})
	write(t, filepath.Join(parent, ".v9.rebase-42"), map[string]string{"recipe.yaml": "an old rebase --as"})
	unlock, err := lockDir(filepath.Join(parent, ".epp-build-v3.new-7"))
	require.NoError(t, err)
	defer unlock()

	require.NoError(t, Clean(parent))
	assert.Equal(t, []string{".epp-build-v3.new-7", ".hidden", "v1", "v2"}, names(t, parent))
	assert.Equal(t, map[string]string{"recipe.yaml": "old"}, tree(t, filepath.Join(parent, "v1")))
	assert.Equal(t, map[string]string{"recipe.yaml": "v2"}, tree(t, filepath.Join(parent, "v2")))
}

func TestIsTemp(t *testing.T) {
	assert.True(t, IsTemp(".epp-build-v1.2.new-123"))
	assert.True(t, IsTemp(".epp-build-v1.old-1"))
	assert.True(t, IsTemp(".vt2.rebase-12"))
	assert.False(t, IsTemp("v1"))
	assert.False(t, IsTemp(".epp-build-v1.new-"))
	assert.False(t, IsTemp(".v1.rebase-"))
}
