// Package modproxy is a Go module proxy stub for tests: it serves, for one
// module, the versions built from commits of a git repository, with the go
// command's zip rules, over the GOPROXY protocol on 127.0.0.1. It answers
// a .info query by tag or commit with the canonical version (a
// pseudo-version for a commit), as proxy.golang.org does, and serves .zip
// only for canonical versions; anything else is 404.
package modproxy

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// Stub serves one module.
type Stub struct {
	// URL is the GOPROXY value that reaches the stub.
	URL    string
	module string
	mu     sync.Mutex
	info   map[string][]byte // query (tag, commit or version) -> .info
	zips   map[string][]byte // canonical version -> .zip
}

// Version is one version the stub serves.
type Version struct {
	Version string
	Commit  string
	// Hash is the zip's h1: hash, as go.sum records it.
	Hash string
}

// Serve starts a stub for module; it stops at test cleanup.
func Serve(t testing.TB, module string) *Stub {
	t.Helper()
	s := &Stub{module: module, info: map[string][]byte{}, zips: map[string][]byte{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// AddCommit serves the commit rev of the git repository repoDir: by the
// given queries (tags, the commit hash), and by its canonical version,
// which is version if not empty, else the commit's pseudo-version.
func (s *Stub) AddCommit(t testing.TB, repoDir, rev, version string, queries ...string) Version {
	t.Helper()
	commit, when := commitOf(t, repoDir, rev)
	if version == "" {
		version = module.PseudoVersion("v0", "", when, commit[:12])
	}
	var zipBuf bytes.Buffer
	mv := module.Version{Path: s.module, Version: version}
	if err := modzip.CreateFromVCS(&zipBuf, mv, repoDir, commit, ""); err != nil {
		t.Fatalf("module zip of %s: %v", rev, err)
	}
	zipPath := filepath.Join(t.TempDir(), "m.zip")
	if err := os.WriteFile(zipPath, zipBuf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	h1, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	info, err := json.Marshal(map[string]any{
		"Version": version, "Time": when.UTC(),
		"Origin": map[string]string{"VCS": "git", "URL": "https://example.com/" + s.module, "Hash": commit},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, q := range append(queries, version) {
		s.info[q] = info
	}
	s.zips[version] = zipBuf.Bytes()
	return Version{Version: version, Commit: commit, Hash: h1}
}

func (s *Stub) serve(w http.ResponseWriter, r *http.Request) {
	esc, err := module.EscapePath(s.module)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/"+esc+"/@v/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case strings.HasSuffix(rest, ".info"):
		if v, err := module.UnescapeVersion(strings.TrimSuffix(rest, ".info")); err == nil && s.info[v] != nil {
			w.Write(s.info[v])
			return
		}
	case strings.HasSuffix(rest, ".zip"):
		if v, err := module.UnescapeVersion(strings.TrimSuffix(rest, ".zip")); err == nil && s.zips[v] != nil {
			w.Write(s.zips[v])
			return
		}
	}
	http.NotFound(w, r)
}

// commitOf is the full hash and committer time of rev in repoDir.
func commitOf(t testing.TB, repoDir, rev string) (string, time.Time) {
	t.Helper()
	out, err := exec.Command("git", "-C", repoDir, "log", "-1", "--format=%H %ct", rev).Output()
	if err != nil {
		t.Fatalf("git log %s in %s: %v", rev, repoDir, err)
	}
	hash, secs, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return hash, time.Unix(n, 0).UTC()
}
