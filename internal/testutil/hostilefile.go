//go:build unix

package testutil

import (
	"os"
	"syscall"
	"testing"
)

// HostileFiles runs check once per shape a file the tool reads can be
// swapped for (a FIFO nobody writes: a read hangs; a symlink to
// /dev/zero: a read never ends), each in a subtest; place makes the shape
// at path. check should read through Returns, so a hang fails the test.
func HostileFiles(t *testing.T, check func(t *testing.T, place func(path string))) {
	shapes := []struct {
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
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			check(t, func(path string) {
				t.Helper()
				_ = os.Remove(path)
				s.make(t, path)
			})
		})
	}
}
