//go:build unix

package export

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/recipe"
)

// within fails the test when call does not return: export must not wait
// on a FIFO or read an endless file where a patch file should be.
func within(t *testing.T, what string, call func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); call() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not return: it waits on a FIFO or reads an endless file", what)
	}
}

func TestExportDoesNotReadHostilePatchFiles(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		// want is what Compare says about the file.
		want string
	}{
		{"FIFO", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		}, "is a FIFO"},
		{"symlink to /dev/zero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, "is a symlink to /dev/zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "0001-a.patch")
			tt.make(t, path)
			r := &recipe.Recipe{Dir: dir, Version: "v1", Series: []recipe.SeriesPatch{{Name: "0001-a.patch", Path: path, Version: "v1"}}}
			patches := []Patch{{Name: "0001-a.patch", Data: []byte("patch\n")}}

			var stale []Stale
			within(t, "Compare", func() { stale = Compare(r, patches) })
			if len(stale) != 1 || !strings.Contains(stale[0].Reason, tt.want) {
				t.Errorf("Compare = %v, want one stale patch saying %q", stale, tt.want)
			}

			var err error
			within(t, "Write", func() { err = Write(dir, patches) })
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(path)
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("Write left %s as %v (%v), want the exported patch file", path, fi.Mode(), err)
			}
		})
	}
}
