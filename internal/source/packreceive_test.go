package source

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// deltaRepo is a repository whose history makes git store most blobs and
// trees as deltas: three commits editing a few lines of large files.
func deltaRepo(t testing.TB) *gitfixture.Repo {
	t.Helper()
	r := gitfixture.New(t)
	files := map[string]string{}
	for _, name := range []string{"a.txt", "dir/b.txt", "dir/sub/c.txt"} {
		files[name] = gitfixture.NumberedLines(name, 400)
	}
	r.Commit(t, "first", files)
	for round := range 2 {
		for name, text := range files {
			files[name] = strings.Replace(text, "line 7\n", "line seven, round "+string(rune('a'+round))+"\n", 1) + "added " + name + "\n"
		}
		r.Commit(t, "edit", files)
	}
	return r
}

// repack packs every object of r into one pack as git would send it,
// with offset deltas or, with refDeltas, deltas naming their base by id,
// and returns the pack's bytes and git's own index of it.
func repack(t testing.TB, r *gitfixture.Repo, refDeltas bool) (pack, idx []byte) {
	t.Helper()
	r.Git(t, "-c", "repack.usedeltabaseoffset="+map[bool]string{true: "false", false: "true"}[refDeltas], "repack", "-adfq")
	packs, err := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "pack-*.pack"))
	require.NoError(t, err)
	require.Len(t, packs, 1)
	pack, err = os.ReadFile(packs[0])
	require.NoError(t, err)
	idx, err = os.ReadFile(strings.TrimSuffix(packs[0], ".pack") + ".idx")
	require.NoError(t, err)
	return pack, idx
}

// receive runs receivePack on data into a fresh folder and returns the
// folder, the blob store and the result.
func receive(t *testing.T, data []byte) (string, *blobWriter, string, error) {
	t.Helper()
	dir := t.TempDir()
	pool, err := newBlobWriter(filepath.Join(dir, "blobs"), time.Now(), nil)
	require.NoError(t, err)
	packDir := filepath.Join(dir, "pack")
	require.NoError(t, os.Mkdir(packDir, 0o755))
	name, err := receivePack(context.Background(), bytes.NewReader(data), packDir, pool, defaultGitLimits())
	return packDir, pool, name, err
}

// TestReceivedPackIsGitsPackWithGitsIndex: a pack decoded as it arrives,
// offset and ref deltas alike, is kept byte for byte under git's name for
// it, with the index git writes for it, and every blob of every commit is
// in the store with git's content.
func TestReceivedPackIsGitsPackWithGitsIndex(t *testing.T) {
	testenv.Tool(t, "git", "git makes the packs")
	for _, refDeltas := range []bool{false, true} {
		t.Run(map[bool]string{false: "offset deltas", true: "ref deltas"}[refDeltas], func(t *testing.T) {
			r := deltaRepo(t)
			pack, gitIdx := repack(t, r, refDeltas)
			kind := "ofs-delta"
			if refDeltas {
				kind = "ref-delta"
			}
			// The pack must hold deltas of the kind under test, or the
			// test proves nothing about resolving them.
			require.Contains(t, packObjectKinds(t, pack), kind)

			packDir, pool, name, err := receive(t, pack)
			require.NoError(t, err)
			ranges, _, err := pool.close()
			require.NoError(t, err)

			kept, err := os.ReadFile(filepath.Join(packDir, name+".pack"))
			require.NoError(t, err)
			assert.Equal(t, pack, kept, "the pack is kept as received")
			idx, err := os.ReadFile(filepath.Join(packDir, name+".idx"))
			require.NoError(t, err)
			assert.Equal(t, gitIdx, idx, "the index is the one git writes")

			store, err := os.ReadFile(filepath.Join(filepath.Dir(packDir), "blobs"))
			require.NoError(t, err)
			var blobs []string
			for _, l := range strings.Split(r.Git(t, "cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname)"), "\n") {
				if kind, id, _ := strings.Cut(l, " "); kind == "blob" {
					blobs = append(blobs, id)
				}
			}
			require.NotEmpty(t, blobs)
			assert.Len(t, ranges, len(blobs), "every blob, once")
			for _, b := range blobs {
				got, ok := ranges[plumbing.NewHash(b)]
				require.True(t, ok, "blob %s is in the store", b)
				assert.Equal(t, r.Git(t, "cat-file", "blob", b)+"\n", string(store[got.off:got.off+got.size]), "blob %s", b)
			}
			entries, err := os.ReadDir(packDir)
			require.NoError(t, err)
			assert.Len(t, entries, 2, "the pack and its index, no temporary file")
		})
	}
}

// packObjectKinds lists the kinds of the objects a pack holds as stored
// (deltas not resolved), to say which kinds of deltas it has.
func packObjectKinds(t testing.TB, data []byte) string {
	t.Helper()
	scanner := packfile.NewScanner(bytes.NewReader(data))
	_, count, err := scanner.Header()
	require.NoError(t, err)
	kinds := map[string]bool{}
	for range count {
		h, err := scanner.NextObjectHeader()
		require.NoError(t, err)
		kinds[h.Type.String()] = true
	}
	var names []string
	for k := range kinds {
		names = append(names, k)
	}
	return strings.Join(names, " ")
}

// TestBrokenPacksLeaveNothingBehind: a pack cut short, one whose checksum
// is wrong, one followed by more data and a thin pack (a delta on an
// object it does not hold) are refused, and nothing is left in the pack
// folder.
func TestBrokenPacksLeaveNothingBehind(t *testing.T) {
	testenv.Tool(t, "git", "git makes the packs")
	r := deltaRepo(t)
	pack, _ := repack(t, r, false)
	_, pool, _, err := receive(t, handPack(t, 11, "hello world"))
	_, _, _ = pool.close()
	require.NoError(t, err, "the hand-made pack, honest about its blob, is taken")
	corrupt := bytes.Clone(pack)
	corrupt[len(corrupt)-1] ^= 0xff
	cases := map[string]struct {
		data []byte
		want string
	}{
		"cut short":                  {pack[:len(pack)/2], "EOF"},
		"wrong checksum":             {corrupt, "checksum"},
		"data after the pack":        {append(bytes.Clone(pack), "more"...), "data follows the pack's checksum"},
		"thin":                       {thinPack(t, r), "base is not earlier in the pack"},
		"blob longer than declared":  {handPack(t, 5, "hello world"), "inflated"},
		"blob shorter than declared": {handPack(t, 50, "hello world"), "a blob of 11 bytes declared 50"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			packDir, pool, _, err := receive(t, c.data)
			_, _, _ = pool.close()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			entries, rerr := os.ReadDir(packDir)
			require.NoError(t, rerr)
			assert.Empty(t, entries)
		})
	}
}

// thinPack is a pack of r's last commit that leaves out what the commit
// before it has, as a server sends a client that has it: its deltas are
// on objects it does not hold.
func thinPack(t testing.TB, r *gitfixture.Repo) []byte {
	t.Helper()
	cmd := exec.Command("git", "pack-objects", "--revs", "--thin", "--stdout", "-q")
	cmd.Dir = r.Dir
	cmd.Stdin = strings.NewReader("HEAD\n^HEAD~1\n")
	out, err := cmd.Output()
	require.NoError(t, err)
	require.Contains(t, packObjectKinds(t, out), "ref-delta", "a thin pack's deltas name their bases by id")
	return out
}

// handPack is a pack of one blob whose header declares size bytes,
// whatever content's length: what a hostile or broken server could send.
func handPack(t *testing.T, size int, content string) []byte {
	t.Helper()
	return handPackBytes(size, content)
}

func handPackBytes(size int, content string) []byte {
	var b bytes.Buffer
	b.WriteString("PACK\x00\x00\x00\x02\x00\x00\x00\x01")
	// Type 3 (blob) and the size's low 4 bits, then 7 bits a byte.
	first := byte(3<<4) | byte(size&0x0f)
	rest := size >> 4
	if rest > 0 {
		first |= 0x80
	}
	b.WriteByte(first)
	for rest > 0 {
		c := byte(rest & 0x7f)
		rest >>= 7
		if rest > 0 {
			c |= 0x80
		}
		b.WriteByte(c)
	}
	z := zlib.NewWriter(&b)
	z.Write([]byte(content))
	z.Close()
	sum := sha1.Sum(b.Bytes())
	return append(b.Bytes(), sum[:]...)
}
