package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingServer answers every request with 404 and counts them: a run
// that must not touch the network is pointed at it.
func countingServer(t *testing.T) (string, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

// moduleProxy serves example.com/up@v1.0.0 with an Origin of commit and a
// zip whose hash no recipe pins.
func moduleProxy(t *testing.T, commit string) string {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("example.com/up@v1.0.0/go.mod")
	require.NoError(t, err)
	_, err = w.Write([]byte("module example.com/up\n"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	info, err := json.Marshal(map[string]any{"Version": "v1.0.0", "Time": "2025-07-23T18:06:51Z",
		"Origin": map[string]string{"VCS": "git", "URL": "https://example.com/up", "Hash": commit, "Ref": "refs/tags/v1.0.0"}})
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/example.com/up/@v/v1.0.0.info":
			w.Write(info)
		case "/example.com/up/@v/v1.0.0.zip":
			w.Write(buf.Bytes())
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func writeRecipe(t *testing.T, root, version, text string) string {
	dir := filepath.Join(root, version)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte(text), 0o644))
	return dir
}

// TestExitCodesAgreeWithTheREADME runs each kind of failure the README's
// exit codes name, and checks that flags are refused before any network
// or compile work.
func TestExitCodesAgreeWithTheREADME(t *testing.T) {
	const commit = "978c23bb96cce25f11cea2421523cb479026e2e9"
	server, requests := countingServer(t)
	patches := t.TempDir()
	pin := "upstream:\n  repository: " + server + "/gaie.git\n  ref: v1.0.0\n  commit: " + commit + "\n"
	writeRecipe(t, patches, "v1.0.0", pin+"patches: []\n")
	writeRecipe(t, patches, "bad-commit", "upstream:\n  repository: "+server+"/gaie.git\n  ref: v1.0.0\n  commit: 978c23\npatches: []\n")
	writeRecipe(t, patches, "bad-yaml", "upstream: [\n")
	writeRecipe(t, patches, "bad-extends", "extends: ../../elsewhere\npatches: []\n")
	writeRecipe(t, patches, "hash", pin+"  module: example.com/up\n  moduleVersion: v1.0.0\n  moduleHash: h1:OMpt4gKlPWkD+h5kHcZZVh4926kix2DSBPI7X5ntuCA=\npatches: []\n")
	proxy := moduleProxy(t, commit)
	out := filepath.Join(t.TempDir(), "out")

	for _, tc := range []struct {
		name string
		args []string
		env  []string
		code int
		want string
	}{
		{"unknown command", []string{"frobnicate"}, nil, 2, `unknown command "frobnicate"`},
		{"unknown command, close to one", []string{"aply"}, nil, 2, `did you mean "apply"?`},
		{"too many arguments", []string{"apply", "--version", "v1.0.0", "--out", out, "extra"}, nil, 2, `unknown command "extra"`},
		{"too few arguments", []string{"diff-series", "v1.0.0"}, nil, 2, "accepts 2 arg(s), received 1"},
		{"unknown flag", []string{"apply", "--outt", out}, nil, 2, "unknown flag: --outt"},
		{"missing --out", []string{"apply", "--version", "v1.0.0"}, nil, 2, "--out is required"},
		{"missing --version", []string{"apply", "--out", out}, nil, 2, "--version or --recipe is required"},
		{"missing --dir", []string{"export"}, nil, 2, "--dir is required"},
		{"unknown --source", []string{"apply", "--version", "v1.0.0", "--out", out, "--source", "ftp"}, nil, 2, "ftp"},
		{"unknown version", []string{"apply", "--version", "v0.0.0", "--out", out}, nil, 2, `version "v0.0.0": no folder`},
		{"build without --push or --oci-tar", []string{"build", "--version", "v1.0.0", "--image", "127.0.0.1:5000/x:y"}, nil, 2, "pass --push and/or --oci-tar"},
		{"build without --image", []string{"build", "--version", "v1.0.0", "--push"}, nil, 2, "pass --image"},
		{"build for an unsupported platform", []string{"build", "--version", "v1.0.0", "--image", "127.0.0.1:5000/x:y", "--push", "--platform", "linux/s390x"}, nil, 2, "linux/s390x"},
		{"build with an --sbom value buildx does not take", []string{"build", "--version", "v1.0.0", "--image", "127.0.0.1:5000/x:y", "--push", "--sbom", "syft"}, nil, 2, `--sbom="syft": want true, false or generator=IMAGE`},
		{"build with a provenance mode BuildKit does not have", []string{"build", "--version", "v1.0.0", "--image", "127.0.0.1:5000/x:y", "--push", "--provenance", "mode=full"}, nil, 2, "--provenance=\"mode=full\""},
		{"build with a platform that has no node", []string{"build", "--version", "v1.0.0", "--image", "127.0.0.1:5000/x:y", "--push", "--buildkit", "linux/amd64=tcp://127.0.0.1:1"}, nil, 2, "no node for linux/arm64"},
		{"build with a cache-to that has no destination", []string{"build", "--version", "v1.0.0", "--image", "127.0.0.1:5000/x:y", "--push", "--cache-to", "type=local"}, nil, 2, "type=local needs dest=DIR"},
		{"build with a cargo feature that is no name", []string{"build", "--version", "v1.0.0", "--image", "127.0.0.1:5000/x:y", "--push", "--capi-features", "bad feature"}, nil, 2, `cargo feature "bad feature"`},
		{"invalid recipe: commit", []string{"apply", "--version", "bad-commit", "--out", out}, nil, 4, "full 40-hex-digit commit"},
		{"invalid recipe: yaml", []string{"apply", "--version", "bad-yaml", "--out", out}, nil, 4, "bad-yaml"},
		{"invalid recipe: extends outside", []string{"apply", "--version", "bad-extends", "--out", out}, nil, 4, "must name a version folder"},
		{"invalid recipe through --recipe", []string{"apply", "--recipe", filepath.Join(patches, "bad-commit"), "--out", out}, nil, 4, "full 40-hex-digit commit"},
		{"invalid recipe in diff-series", []string{"diff-series", "v1.0.0", "bad-commit"}, nil, 4, "full 40-hex-digit commit"},
		{"module zip hash mismatch", []string{"apply", "--version", "hash", "--out", out, "--source", "goproxy"}, []string{"GOPROXY=" + proxy, "GOFLAGS=", "GONOPROXY=", "GOPRIVATE="}, 5, "pins upstream.moduleHash h1:OMpt4gKlPWkD+h5kHcZZVh4926kix2DSBPI7X5ntuCA="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := requests.Load()
			cache := t.TempDir()
			r := runEnv(t, cache, tc.env, append([]string{"--patches", patches}, tc.args...)...)
			assert.Equal(t, tc.code, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
			assert.Equal(t, before, requests.Load(), "no request to the upstream")
			assert.NoDirExists(t, out, "nothing written")
			if tc.code != 5 {
				entries, _ := os.ReadDir(filepath.Join(cache, "epp-build"))
				assert.Empty(t, entries, "nothing fetched")
			}
		})
	}
}

// TestControlCharactersAreEscaped gives a patch a subject, author and file
// name holding ESC and CR: no human-readable output lets them through,
// and JSON keeps them exactly.
func TestControlCharactersAreEscaped(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	patch := strings.NewReplacer("Subject: Say hello in the docs", "Subject: \x1b[31mred\rfake subject",
		"From: Ada Author", "From: Ada \x1b]0;pwned\x07Author").Replace(docsPatch)
	patch += "\nReason: \x1b[2Jclear\nUpstream: https://example.com/\x1b[1m\n"
	patch = strings.Replace(patch, "\n\ndiff --git", "\n\nWhy.\n\nReason: \x1b[2Jclear\n---\ndiff --git", 1)
	dir := recipeDir(t, u, "v1.0.0", u.commit, map[string][]byte{"0001-docs.patch": []byte(patch)}, "0001-docs.patch")
	patches := filepath.Dir(dir)
	version := filepath.Base(dir)

	r := run(t, cache, "--patches", patches, "log", "--version", version)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `\x1b[31mred\rfake subject`)
	assert.Contains(t, r.stdout, `Ada \x1b]0;pwned\x07Author`)
	assert.Contains(t, r.stdout, `\x1b[2Jclear`)
	assertNoControls(t, r.stdout)

	r = run(t, cache, "--patches", patches, "log", "--version", version, "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var entries []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &entries))
	assert.Equal(t, "\x1b[31mred\rfake subject", entries[0]["subject"], "JSON keeps the text exactly")

	r = run(t, cache, "--patches", patches, "lint")
	assertNoControls(t, r.stdout+r.stderr)

	r = run(t, cache, "--patches", patches, "diff-series", version, version)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `\x1b[31mred\rfake subject`)
	assertNoControls(t, r.stdout)

	// A conflict message names the patch's file; apply's error escapes it.
	evil := strings.Replace(docsPatch, "docs/a.txt", "docs/\x1b[8ma.txt", -1)
	dir = recipeDir(t, u, "v1.0.0", u.commit, map[string][]byte{"0001-docs.patch": []byte(evil)}, "0001-docs.patch")
	r = run(t, cache, "apply", "--recipe", dir, "--out", filepath.Join(t.TempDir(), "out"))
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, `docs/\x1b[8ma.txt`)
	assertNoControls(t, r.stderr)
}

func assertNoControls(t *testing.T, s string) {
	t.Helper()
	for _, c := range []string{"\x1b", "\r", "\x07"} {
		assert.NotContains(t, s, c)
	}
}
