//go:build unix

package export

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil"

	"github.com/epp-build/epp-build/internal/recipe"
)

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
			testutil.Returns(t, "Compare", func() error { stale = Compare(r, patches); return nil })
			if len(stale) != 1 || !strings.Contains(stale[0].Reason, tt.want) {
				t.Errorf("Compare = %v, want one stale patch saying %q", stale, tt.want)
			}

			var err error
			err = testutil.Returns(t, "Write", func() error { return Write(dir, patches) })
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
