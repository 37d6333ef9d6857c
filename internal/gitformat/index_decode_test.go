package gitformat

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goGitDecode is what go-git's own decoder makes of data.
func goGitDecode(t *testing.T, data []byte) *index.Index {
	t.Helper()
	idx := &index.Index{}
	require.NoError(t, index.NewDecoder(bytes.NewReader(data)).Decode(idx))
	return idx
}

// TestDecodeMatchesGoGit: every version and kind of entry decodes to what
// go-git's decoder makes of the same bytes.
func TestDecodeMatchesGoGit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, version := range []uint32{2, 3, 4} {
		for _, n := range []int{0, 1, 9, 300} {
			var buf bytes.Buffer
			require.NoError(t, index.NewEncoder(&buf).Encode(randomIndex(rng, version, n)))
			got, err := DecodeIndex(buf.Bytes())
			require.NoError(t, err)
			assert.Equal(t, goGitDecode(t, buf.Bytes()), got, "version %d, %d entries", version, n)
			_, plain := decodePlain(buf.Bytes())
			assert.Equal(t, version != 4, plain, "version %d is read here, not by go-git", version)
		}
	}
}

// TestDecodeGitCLIIndex: an index git wrote itself, with the cache-tree
// extension `git commit` adds, decodes as go-git decodes it.
func TestDecodeGitCLIIndex(t *testing.T) {
	dir := t.TempDir()
	gitfixture.Git(t, dir, "init", "-q")
	for _, name := range []string{"a.txt", "sub/b.go", "sub/deeper/c"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644))
	}
	gitfixture.Git(t, dir, "add", ".")
	gitfixture.Git(t, dir, "commit", "-q", "-m", "three files")
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	require.NoError(t, err)
	want := goGitDecode(t, data)
	require.NotNil(t, want.Cache, "git wrote a cache-tree extension")
	_, plain := decodePlain(data)
	assert.False(t, plain, "an index with extensions goes to go-git")
	got, err := ReadIndex(filepath.Join(dir, ".git", "index"))
	require.NoError(t, err)
	fi, err := os.Stat(filepath.Join(dir, ".git", "index"))
	require.NoError(t, err)
	want.ModTime = fi.ModTime()
	assert.Equal(t, want, got)

	empty, err := ReadIndex(filepath.Join(dir, "no-index"))
	require.NoError(t, err)
	assert.Equal(t, &index.Index{Version: 2}, empty, "a missing index is an empty one, as go-git reads it")
}

// TestDecodeDamaged: a damaged index gives go-git's error, never a
// partly read index.
func TestDecodeDamaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	require.NoError(t, EncodeIndex(&buf, randomIndex(rng, 2, 20)))
	good := buf.Bytes()
	for name, damage := range map[string]func([]byte) []byte{
		"flipped byte": func(b []byte) []byte { b[100] ^= 1; return b },
		"truncated":    func(b []byte) []byte { return b[:len(b)/2] },
		"signature":    func(b []byte) []byte { copy(b, "DIRX"); return b },
	} {
		_, err := DecodeIndex(damage(bytes.Clone(good)))
		assert.Error(t, err, name)
	}
}
