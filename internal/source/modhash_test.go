package source

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// goCommandHash is the h1: hash of the zip the go command makes of commit
// in repoDir (golang.org/x/mod/zip from `git archive`, as a proxy does).
func goCommandHash(t *testing.T, repoDir, commit string) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, modzip.CreateFromVCS(&buf, module.Version{Path: fakeModule, Version: fakeVersion}, repoDir, commit, ""))
	zipPath := filepath.Join(t.TempDir(), "m.zip")
	require.NoError(t, os.WriteFile(zipPath, buf.Bytes(), 0o644))
	h, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	require.NoError(t, err)
	return h
}

// withVendor adds a vendor folder to the fixture's release: the zip leaves
// it out, as it leaves out the nested module and the symlink.
func withVendor(t *testing.T, f *fixture) string {
	t.Helper()
	return f.repo.Commit(t, "vendor", map[string]string{
		"vendor/modules.txt":          "# example.com/dep v1.0.0\n",
		"vendor/example.com/dep/d.go": "package dep\n",
	})
}

func TestModuleHashOfAGitTreeIsTheGoCommandsZipHash(t *testing.T) {
	f := newFixture(t)
	commit := withVendor(t, f)
	want := goCommandHash(t, f.repo.Dir, commit)
	for name, kind := range map[string]Kind{"git": Git, "path": Path} {
		t.Run(name, func(t *testing.T) {
			url := f.repo.FileURL()
			if kind == Path {
				url = f.repo.Dir
			}
			tree := fetch(t, Request{Pin: pin(url, commit, commit), Kind: kind, CacheDir: t.TempDir()})
			got, err := tree.ModuleHash(context.Background(), fakeModule, fakeVersion)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			other, err := tree.ModuleHash(context.Background(), fakeModule, "v1.0.1")
			require.NoError(t, err)
			assert.NotEqual(t, want, other, "the zip's names carry module@version, so its hash does too")
		})
	}
}

func TestFetchRefusesAModuleHashTheTreeDoesNotHave(t *testing.T) {
	f := newFixture(t)
	real := goCommandHash(t, f.repo.Dir, f.rel)
	fake := "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	p := pin(f.repo.FileURL(), "v1.0.0", f.rel)
	p.Module, p.ModuleVersion, p.ModuleHash = fakeModule, fakeVersion, fake
	cache := t.TempDir()

	_, err := Fetch(context.Background(), Request{Pin: p, Kind: Git, CacheDir: cache})
	var mh *ModuleHashError
	require.ErrorAs(t, err, &mh)
	assert.Equal(t, fake, mh.Want)
	assert.Equal(t, real, mh.Got)
	assert.Equal(t, f.rel, mh.Commit)
	assert.Contains(t, err.Error(), "set upstream.moduleHash to "+real)

	// The cached entry is refused the same way, and the real hash passes.
	_, err = Fetch(context.Background(), Request{Pin: p, Kind: Git, CacheDir: cache})
	require.ErrorAs(t, err, &mh)
	p.ModuleHash = real
	tree, err := Fetch(context.Background(), Request{Pin: p, Kind: Git, CacheDir: cache})
	require.NoError(t, err)
	assert.True(t, tree.Cached)
}

func TestModuleHashIsComputedOncePerCacheEntry(t *testing.T) {
	f := newFixture(t)
	p := pin(f.repo.FileURL(), "v1.0.0", f.rel)
	p.Module, p.ModuleVersion, p.ModuleHash = fakeModule, fakeVersion, goCommandHash(t, f.repo.Dir, f.rel)
	cache := t.TempDir()

	before := moduleZips.Load()
	cold := fetch(t, Request{Pin: p, Kind: Git, CacheDir: cache})
	require.Equal(t, int64(1), moduleZips.Load()-before)

	data, err := os.ReadFile(filepath.Join(cold.dir, entryFile))
	require.NoError(t, err)
	var m entryMeta
	require.NoError(t, json.Unmarshal(data, &m))
	assert.Equal(t, p.ModuleHash, m.ModuleHashes[fakeModule+"@"+fakeVersion])

	warm := fetch(t, Request{Pin: p, Kind: Git, CacheDir: cache})
	require.True(t, warm.Cached)
	assert.Equal(t, int64(1), moduleZips.Load()-before, "a warm fetch must not zip the tree again")
}

// TestAKilledHashRecordIsRepaired: a run killed while recording a module
// hash leaves entry.json as it was and its temporary file beside it; the
// next fetch records the hash and removes that file, and only it.
func TestAKilledHashRecordIsRepaired(t *testing.T) {
	f := newFixture(t)
	p := pin(f.repo.FileURL(), "v1.0.0", f.rel)
	p.Module, p.ModuleVersion, p.ModuleHash = fakeModule, fakeVersion, goCommandHash(t, f.repo.Dir, f.rel)
	cache := t.TempDir()
	cold := fetch(t, Request{Pin: p, Kind: Git, CacheDir: cache})

	name := filepath.Join(cold.dir, entryFile)
	data, err := os.ReadFile(name)
	require.NoError(t, err)
	var m entryMeta
	require.NoError(t, json.Unmarshal(data, &m))
	m.ModuleHashes = nil
	data, err = json.Marshal(&m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(name, data, 0o644))
	left := filepath.Join(cold.dir, ".entry.json.epp-build-2718281828.tmp")
	require.NoError(t, os.WriteFile(left, []byte(`{"half":`), 0o644))
	mine := filepath.Join(cold.dir, "entry.json.tmp")
	require.NoError(t, os.WriteFile(mine, nil, 0o644))

	warm := fetch(t, Request{Pin: p, Kind: Git, CacheDir: cache})
	require.True(t, warm.Cached)
	assert.NoFileExists(t, left)
	assert.FileExists(t, mine, "not a temporary file of epp-build's")
	data, err = os.ReadFile(name)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &m))
	assert.Equal(t, p.ModuleHash, m.ModuleHashes[fakeModule+"@"+fakeVersion])
}
