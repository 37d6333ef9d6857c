package gitformat

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomIndex is an index with every kind of entry the encoder must get
// right: zero and real times, long names, stages and extended flags (in
// version 3).
func randomIndex(rng *rand.Rand, version uint32, n int) *index.Index {
	idx := &index.Index{Version: version}
	modes := []filemode.FileMode{filemode.Regular, filemode.Executable, filemode.Symlink, filemode.Submodule}
	for i := range n {
		name := strings.Repeat("d/", rng.IntN(4)) + strings.Repeat("x", 1+rng.IntN(20)) + string(rune('a'+i%26))
		if rng.IntN(50) == 0 {
			name = strings.Repeat("long/", 900) + name // over the 12-bit length field
		}
		var h plumbing.Hash
		for j := range h {
			h[j] = byte(rng.Uint32())
		}
		e := &index.Entry{
			Name: name, Hash: h, Mode: modes[rng.IntN(len(modes))],
			Dev: rng.Uint32(), Inode: rng.Uint32(), UID: rng.Uint32(), GID: rng.Uint32(), Size: rng.Uint32(),
			Stage: index.Stage(rng.IntN(4)),
		}
		if rng.IntN(4) > 0 {
			e.CreatedAt = time.Unix(int64(rng.Uint32()>>1), int64(rng.IntN(1e9)))
			e.ModifiedAt = time.Unix(int64(rng.Uint32()>>1), int64(rng.IntN(1e9)))
		}
		if version == 3 {
			e.IntentToAdd, e.SkipWorktree = rng.IntN(3) == 0, rng.IntN(3) == 0
		}
		idx.Entries = append(idx.Entries, e)
	}
	return idx
}

// TestEncodeMatchesGoGit: the bytes are go-git's, entry for entry.
func TestEncodeMatchesGoGit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, version := range []uint32{2, 3, 4} {
		for _, n := range []int{0, 1, 7, 300} {
			ours, theirs := randomIndex(rng, version, n), &index.Index{}
			*theirs = *ours
			theirs.Entries = append([]*index.Entry(nil), ours.Entries...)
			var got, want bytes.Buffer
			require.NoError(t, EncodeIndex(&got, ours))
			require.NoError(t, index.NewEncoder(&want).Encode(theirs))
			require.Equal(t, want.Bytes(), got.Bytes(), "version %d, %d entries", version, n)

			back := &index.Index{}
			require.NoError(t, index.NewDecoder(bytes.NewReader(got.Bytes())).Decode(back))
			assert.Len(t, back.Entries, n)
		}
	}
}

// TestEncodeRefusesTimesBefore1970 as go-git does.
func TestEncodeRefusesTimesBefore1970(t *testing.T) {
	idx := &index.Index{Version: 2, Entries: []*index.Entry{{Name: "a", ModifiedAt: time.Unix(-5, 0)}}}
	assert.ErrorIs(t, EncodeIndex(&bytes.Buffer{}, idx), ErrInvalidTimestamp)
}

// TestGitReadsTheIndex: the git CLI accepts what EncodeIndex writes.
func TestGitReadsTheIndex(t *testing.T) {
	dir := t.TempDir()
	gitfixture.Git(t, dir, "init", "-q")
	blob := plumbing.ComputeHash(plumbing.BlobObject, nil)
	idx := &index.Index{Version: 2}
	for _, name := range []string{"z.txt", "a/b.go", "a.txt"} {
		idx.Entries = append(idx.Entries, &index.Entry{Name: name, Hash: blob, Mode: filemode.Regular})
	}
	var buf bytes.Buffer
	require.NoError(t, EncodeIndex(&buf, idx))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "index"), buf.Bytes(), 0o644))
	assert.Equal(t, "a.txt\na/b.go\nz.txt\n", gitfixture.Git(t, dir, "ls-files")+"\n")
}
