//go:build unix

package inputfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil"
)

// The shapes of input FuzzReadFile makes: what a hostile recipe folder
// can hold where a recipe.yaml or a patch is expected.
const (
	shapeRegular        = iota // a regular file in the recipe folder
	shapeLinkInside            // a symlink to a regular file in the folder
	shapeLinkOutside           // a symlink to a regular file elsewhere
	shapeFIFO                  // a named pipe nobody writes
	shapeDirectory             // a directory
	shapeLinkDevZero           // a symlink to /dev/zero
	shapeCommandLine           // a regular file named on the command line (no root)
	shapeGrowsAfterOpen        // a regular file that grows once it is open
	shapes
)

// FuzzReadFile makes an input of a fuzzed shape, content and limit and
// reads it: the read always returns; only a regular file inside the folder
// (or named on the command line) within the limit is read, and exactly;
// everything else is refused as an *Error, never read past the limit.
func FuzzReadFile(f *testing.F) {
	for shape := range uint8(shapes) {
		f.Add(shape, []byte("diff --git a/x b/x\n"), uint16(64))
		f.Add(shape, bytes.Repeat([]byte("x"), 65), uint16(64))
	}
	f.Add(uint8(shapeGrowsAfterOpen), []byte("1234567890"), uint16(6))
	f.Add(uint8(shapeRegular), []byte{}, uint16(0))
	f.Fuzz(func(t *testing.T, shape uint8, content []byte, limitBytes uint16) {
		shape %= shapes
		limit := Limit{Bytes: int64(limitBytes), What: "a fuzzed input", Raise: "raise it"}
		root := t.TempDir()
		path := filepath.Join(root, "a.patch")
		readRoot := root
		switch shape {
		case shapeRegular:
			must(t, os.WriteFile(path, content, 0o644))
		case shapeLinkInside:
			must(t, os.Mkdir(filepath.Join(root, "real"), 0o755))
			must(t, os.WriteFile(filepath.Join(root, "real", "b.patch"), content, 0o644))
			link(t, filepath.Join("real", "b.patch"), path)
		case shapeLinkOutside:
			outside := filepath.Join(t.TempDir(), "secret")
			must(t, os.WriteFile(outside, content, 0o644))
			link(t, outside, path)
		case shapeFIFO:
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		case shapeDirectory:
			must(t, os.Mkdir(path, 0o755))
		case shapeLinkDevZero:
			link(t, "/dev/zero", path)
		case shapeCommandLine:
			must(t, os.WriteFile(path, content, 0o644))
			readRoot = ""
		case shapeGrowsAfterOpen:
			must(t, os.WriteFile(path, content[:len(content)/2], 0o644))
		}

		var data []byte
		err := testutil.Returns(t, "reading the input", func() error {
			f, err := Open(path, readRoot, limit)
			if err != nil {
				return err
			}
			defer f.Close()
			if shape == shapeGrowsAfterOpen {
				if err := os.WriteFile(path, content, 0o644); err != nil {
					return err
				}
			}
			data, err = io.ReadAll(f)
			return err
		})

		readable := shape == shapeRegular || shape == shapeLinkInside || shape == shapeCommandLine || shape == shapeGrowsAfterOpen
		fits := int64(len(content)) <= limit.Bytes
		if shape == shapeGrowsAfterOpen && int64(len(content)/2) > limit.Bytes {
			fits = false // refused at open, before it grows
		}
		if readable && fits {
			if err != nil || !bytes.Equal(data, content) {
				t.Fatalf("shape %d, %d bytes, limit %d: read %d bytes, %v; want the content", shape, len(content), limit.Bytes, len(data), err)
			}
			return
		}
		var refused *Error
		if !errors.As(err, &refused) {
			t.Fatalf("shape %d, %d bytes, limit %d: read %d bytes, %v; want an *Error", shape, len(content), limit.Bytes, len(data), err)
		}
		if int64(len(data)) > limit.Bytes+1 {
			t.Fatalf("shape %d: read %d bytes past the %d-byte limit", shape, len(data), limit.Bytes)
		}
	})
}
