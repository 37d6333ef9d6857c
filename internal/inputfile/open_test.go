//go:build unix

package inputfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil"
)

func TestOpenRefusesWhatIsNotARegularFileInside(t *testing.T) {
	small := Limit{Bytes: 16, What: "a test input", Raise: "raise it"}
	tests := []struct {
		name string
		// make creates the input in dir and returns its path and the root
		// to check it against.
		make    func(t *testing.T, dir string) (path, root string)
		problem string
	}{
		{"symlink to /dev/zero", func(t *testing.T, dir string) (string, string) {
			return link(t, "/dev/zero", filepath.Join(dir, "a.patch")), dir
		}, "is a symlink to /dev/zero (a character device), outside the recipe folder"},
		{"device without a root", func(t *testing.T, dir string) (string, string) {
			return link(t, "/dev/zero", filepath.Join(dir, "a.patch")), ""
		}, "is a character device"},
		{"FIFO", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "a.patch")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			return p, dir
		}, "is a FIFO (named pipe)"},
		{"socket", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "s.patch")
			l, err := net.Listen("unix", p)
			if err != nil {
				t.Skip("no unix sockets here:", err)
			}
			t.Cleanup(func() { l.Close() })
			return p, dir
		}, "is a socket"},
		{"directory", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "d.patch")
			must(t, os.Mkdir(p, 0o755))
			return p, dir
		}, "is a directory"},
		{"symlink out of the folder", func(t *testing.T, dir string) (string, string) {
			outside := filepath.Join(t.TempDir(), "secret")
			must(t, os.WriteFile(outside, []byte("x"), 0o644))
			return link(t, outside, filepath.Join(dir, "a.patch")), dir
		}, "outside the recipe folder"},
		{"over the limit", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "a.patch")
			must(t, os.WriteFile(p, []byte(strings.Repeat("x", 20)), 0o644))
			return p, dir
		}, "is 20 bytes, 4 over the 16-byte limit for a test input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path, root := tt.make(t, dir)
			var data []byte
			err := testutil.Returns(t, "opening the input", func() (err error) {
				data, err = ReadFile(path, root, small)
				return err
			})
			var refused *Error
			if !errors.As(err, &refused) {
				t.Fatalf("ReadFile(%s) = %d bytes, %v; want an *Error", path, len(data), err)
			}
			if refused.Path != path || !strings.Contains(err.Error(), tt.problem) || refused.Fix == "" {
				t.Errorf("error %q: want the path %s, %q and a fix", err, path, tt.problem)
			}
		})
	}
}

func TestOpenReadsRegularFiles(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "real.patch"), []byte("diff"), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "capi"), 0o755))
	inner := link(t, filepath.Join("..", "real.patch"), filepath.Join(dir, "capi", "inner.patch"))
	for _, path := range []string{filepath.Join(dir, "real.patch"), inner} {
		data, err := ReadFile(path, dir, Limit{Bytes: 4})
		if err != nil || string(data) != "diff" {
			t.Errorf("ReadFile(%s) = %q, %v; want diff", path, data, err)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), dir, Limit{Bytes: 4}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestReadStopsAtTheLimitWhenTheFileGrows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.patch")
	must(t, os.WriteFile(path, []byte("1234"), 0o644))
	f, err := Open(path, "", Limit{Bytes: 4})
	must(t, err)
	defer f.Close()
	must(t, os.WriteFile(path, []byte("123456789"), 0o644))
	var refused *Error
	if _, err := io.ReadAll(f); !errors.As(err, &refused) {
		t.Fatalf("reading a file that grew past the limit: %v, want an *Error", err)
	}
}

func TestPatchLimitFromTheEnvironment(t *testing.T) {
	t.Setenv(PatchLimitEnv, "")
	if got := PatchLimit().Bytes; got != PatchBytes {
		t.Errorf("default patch limit %d, want %d", got, PatchBytes)
	}
	t.Setenv(PatchLimitEnv, "512")
	if got := PatchLimit().Bytes; got != 512<<20 {
		t.Errorf("%s=512: limit %d, want %d", PatchLimitEnv, got, 512<<20)
	}
}

func link(t *testing.T, target, path string) string {
	t.Helper()
	must(t, os.Symlink(target, path))
	return path
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
