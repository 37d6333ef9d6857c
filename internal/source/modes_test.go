package source

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

const modesModule = "example.com/modes"

// versionsProxy is a module proxy test double serving several versions of
// one module, each zipped from a fixture commit with the go command's own
// zip rules (which drop file modes, as the real proxy does).
type versionsProxy struct {
	*httptest.Server
	files map[string][]byte // request path -> body
	hash  map[string]string // version -> h1: hash
}

func newVersionsProxy(t *testing.T, repo *gitfixture.Repo, commits map[string]string) *versionsProxy {
	t.Helper()
	p := &versionsProxy{files: map[string][]byte{}, hash: map[string]string{}}
	for version, commit := range commits {
		var zipBuf bytes.Buffer
		require.NoError(t, modzip.CreateFromVCS(&zipBuf, module.Version{Path: modesModule, Version: version}, repo.Dir, commit, ""))
		zipPath := filepath.Join(t.TempDir(), "m.zip")
		require.NoError(t, os.WriteFile(zipPath, zipBuf.Bytes(), 0o644))
		h1, err := dirhash.HashZip(zipPath, dirhash.Hash1)
		require.NoError(t, err)
		info, err := json.Marshal(map[string]any{"Version": version, "Time": time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
			"Origin": map[string]string{"VCS": "git", "URL": "https://example.com/modes", "Hash": commit}})
		require.NoError(t, err)
		prefix := "/" + modesModule + "/@v/" + version
		p.files[prefix+".info"], p.files[prefix+".zip"], p.hash[version] = info, zipBuf.Bytes(), h1
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if body, ok := p.files[r.URL.Path]; ok {
			w.Write(body)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// TestGoProxyTreeMatchesGitTree: for a release tag and for a pseudo-version
// commit, the tree made from the module proxy equals the git tree of the
// same commit in content and in mode: scripts (files starting with #!)
// are executable again.
func TestGoProxyTreeMatchesGitTree(t *testing.T) {
	repo := gitfixture.New(t)
	repo.WriteExec(t, "hack/build.sh", "#!/bin/sh\necho build\n")
	repo.WriteExec(t, "hack/lib/gen.py", "#!/usr/bin/env python3\nprint('gen')\n")
	tag := repo.Commit(t, "release", map[string]string{
		"go.mod":         "module " + modesModule + "\n\ngo 1.22\n",
		"main.go":        "package main\n\nfunc main() {}\n",
		"docs/shell.md":  "Run it:\n\n    #!/bin/sh is not at the start here\n",
		"hack/README.md": "scripts\n",
	})
	repo.Tag(t, "v0.5.1", tag, true)
	repo.WriteExec(t, "hack/verify.sh", "#!/bin/bash\nexit 0\n")
	pseudoCommit := repo.Commit(t, "after the release", map[string]string{"main.go": "package main\n\nfunc main() { println() }\n"})
	repo.AllowFetchBySHA(t)
	pseudo := module.PseudoVersion("v0", "v0.5.1", time.Date(2025, 1, 2, 3, 5, 5, 0, time.UTC), pseudoCommit[:12])

	proxy := newVersionsProxy(t, repo, map[string]string{"v0.5.1": tag, pseudo: pseudoCommit})
	t.Setenv("GOENV", "off")
	t.Setenv("GOPROXY", proxy.URL)
	gitURL := repo.HTTPURL(gitfixture.ServeHTTP(t, filepath.Dir(repo.Dir)))

	pins := map[string]recipe.Upstream{
		"tag":            {Repository: gitURL, Ref: "v0.5.1", Commit: tag, Module: modesModule, ModuleVersion: "v0.5.1", ModuleHash: proxy.hash["v0.5.1"]},
		"pseudo-version": {Repository: gitURL, Ref: pseudoCommit, Commit: pseudoCommit, Module: modesModule, ModuleVersion: pseudo, ModuleHash: proxy.hash[pseudo]},
	}
	for name, p := range pins {
		t.Run(name, func(t *testing.T) {
			trees := map[Kind]string{}
			for _, kind := range []Kind{Git, GoProxy} {
				tree := fetch(t, Request{Pin: p, Kind: kind, CacheDir: t.TempDir()})
				require.Equal(t, kind, tree.Via)
				dst := filepath.Join(t.TempDir(), string(kind))
				require.NoError(t, tree.Materialize(context.Background(), dst))
				requireWorkTree(t, dst, tree.BaseCommit, nil, "")
				trees[kind] = dst
			}
			assert.Equal(t, gitfixture.Git(t, trees[Git], "ls-tree", "-r", "HEAD"), gitfixture.Git(t, trees[GoProxy], "ls-tree", "-r", "HEAD"))
			assert.Equal(t, diskModes(t, trees[Git]), diskModes(t, trees[GoProxy]))
			assert.Equal(t, os.FileMode(0o755), diskModes(t, trees[GoProxy])["hack/lib/gen.py"])
		})
	}
}

// diskModes maps every work-tree file (outside .git) to its permissions.
func diskModes(t *testing.T, dir string) map[string]fs.FileMode {
	t.Helper()
	out := map[string]fs.FileMode{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = fi.Mode().Perm()
		return nil
	}))
	return out
}
