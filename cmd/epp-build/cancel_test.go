package main

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterruptLeavesNothingBehind sends SIGINT while apply is fetching
// and checks that neither --out, nor a staging folder, nor a cache entry
// is left.
func TestInterruptLeavesNothingBehind(t *testing.T) {
	u := newUpstream(t)
	fetching := make(chan struct{}, 1)
	release := make(chan struct{})
	backend := gitfixture.Handler(t, filepath.Dir(u.repo.Dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "git-upload-pack") && r.Method == http.MethodPost {
			select {
			case fetching <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		backend.ServeHTTP(w, r)
	}))
	defer srv.Close()
	defer close(release)

	dir := recipeDir(t, upstream{url: srv.URL + "/gaie"}, "v1.0.0", u.commit, nil)
	cache := t.TempDir()
	parent := t.TempDir()
	cmd := exec.Command(binary, "apply", "--recipe", dir, "--out", filepath.Join(parent, "out"), "--source", "git")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	select {
	case <-fetching:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("apply never reached the fetch: %s", stderr.String())
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("apply did not stop after SIGINT")
	}
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "apply must fail when interrupted: %v", err)
	assert.Equal(t, 130, exit.ExitCode(), stderr.String())

	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Empty(t, entries, "no --out and no staging folder")
	var leftovers []string
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && strings.Contains(d.Name(), u.commit) {
			leftovers = append(leftovers, p)
		}
		return nil
	})
	assert.Empty(t, leftovers, "no cache entry for the interrupted fetch")
}
