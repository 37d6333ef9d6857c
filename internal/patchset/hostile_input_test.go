//go:build unix

package patchset

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// TestParseFileRefusesWhatIsNotAPatchFile: a patch file that is a FIFO or a
// device is refused for what it is, without waiting for a writer or reading
// an endless stream.
func TestParseFileRefusesWhatIsNotAPatchFile(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"FIFO", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		}},
		{"symlink to /dev/zero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "0001-a.patch")
			tt.make(t, path)
			err := testutil.Returns(t, "ParseFile", func() error { _, err := ParseFile(path, "0001-a.patch"); return err })
			var refused *inputfile.Error
			if !errors.As(err, &refused) {
				t.Fatalf("ParseFile = %v, want an *inputfile.Error", err)
			}
		})
	}
}
