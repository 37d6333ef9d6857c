package source

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

const (
	fakeModule  = "example.com/up"
	fakeVersion = "v1.0.0"
)

// fakeProxy is a module proxy serving one module version built from a
// fixture commit with the go command's own zip rules.
type fakeProxy struct {
	*httptest.Server
	info     []byte
	zip      []byte
	hash     string
	infoTime time.Time
	requests atomic.Int64
	// hook, when set, runs before each response (to cancel, fail...).
	hook func(w http.ResponseWriter, r *http.Request) bool
}

// newFakeProxy zips the fixture's release commit as fakeModule@fakeVersion.
// origin is the commit the .info claims ("" leaves Origin out).
func newFakeProxy(t *testing.T, f *fixture, origin string) *fakeProxy {
	t.Helper()
	var zipBuf bytes.Buffer
	mv := module.Version{Path: fakeModule, Version: fakeVersion}
	require.NoError(t, modzip.CreateFromVCS(&zipBuf, mv, f.repo.Dir, f.rel, ""))
	zipPath := filepath.Join(t.TempDir(), "m.zip")
	require.NoError(t, os.WriteFile(zipPath, zipBuf.Bytes(), 0o644))
	h1, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	require.NoError(t, err)

	p := &fakeProxy{zip: zipBuf.Bytes(), hash: h1, infoTime: time.Date(2025, 7, 23, 18, 6, 51, 0, time.UTC)}
	info := map[string]any{"Version": fakeVersion, "Time": p.infoTime}
	if origin != "" {
		info["Origin"] = map[string]string{"VCS": "git", "URL": "https://example.com/up", "Hash": origin, "Ref": "refs/tags/" + fakeVersion}
	}
	p.info, err = json.Marshal(info)
	require.NoError(t, err)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.requests.Add(1)
		if p.hook != nil && !p.hook(w, r) {
			return
		}
		prefix := "/" + fakeModule + "/@v/" + fakeVersion
		switch r.URL.Path {
		case prefix + ".info":
			w.Write(p.info)
		case prefix + ".zip":
			w.Write(p.zip)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(p.Close)
	return p
}

// pin pins the fixture release through git url and the fake module.
func (p *fakeProxy) pin(url, commit string) recipe.Upstream {
	return recipe.Upstream{Repository: url, Ref: "v1.0.0", Commit: commit,
		Module: fakeModule, ModuleVersion: fakeVersion, ModuleHash: p.hash}
}

// zipFiles lists the files in the proxy's zip, prefix stripped.
func (p *fakeProxy) zipFiles(t *testing.T) []string {
	t.Helper()
	zipPath := filepath.Join(t.TempDir(), "m.zip")
	require.NoError(t, os.WriteFile(zipPath, p.zip, 0o644))
	cf, err := modzip.CheckZip(module.Version{Path: fakeModule, Version: fakeVersion}, zipPath)
	require.NoError(t, err)
	var out []string
	for _, f := range cf.Valid {
		out = append(out, strings.TrimPrefix(f, fakeModule+"@"+fakeVersion+"/"))
	}
	return out
}
