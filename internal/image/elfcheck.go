package image

import (
	"archive/tar"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/epp-build/epp-build/internal/platform"
)

var errNotFound = errors.New("not in the image")

// entrypointMachine reads the entrypoint file from the image's flattened
// filesystem and returns its ELF machine. A binary of the wrong arch runs
// anyway under qemu binfmt (and natively when it is the host's arch), so
// the smoke run alone cannot catch it; the ELF header can.
func entrypointMachine(img v1.Image, file string) (uint16, error) {
	want := strings.TrimPrefix(path.Clean("/"+file), "/")
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return 0, errNotFound
		}
		if err != nil {
			return 0, err
		}
		if strings.TrimPrefix(path.Clean("/"+h.Name), "/") != want || h.Typeflag != tar.TypeReg {
			continue
		}
		hdr := make([]byte, 20)
		if _, err := io.ReadFull(tr, hdr); err != nil || string(hdr[:4]) != "\x7fELF" {
			return 0, fmt.Errorf("/%s is not an ELF executable", want)
		}
		if hdr[5] == 2 { // big-endian
			return binary.BigEndian.Uint16(hdr[18:20]), nil
		}
		return binary.LittleEndian.Uint16(hdr[18:20]), nil
	}
}

// checkEntrypointArch fails when the entrypoint is an ELF file for another
// architecture than the platform's. A missing file (for example an
// entrypoint found through PATH) is not an error: it cannot be checked.
func checkEntrypointArch(img v1.Image, name string, entrypoint []string) (bool, error) {
	if len(entrypoint) == 0 || !strings.HasPrefix(entrypoint[0], "/") {
		return false, nil
	}
	arch := name[strings.LastIndex(name, "/")+1:]
	want, known := platform.ELFMachine(arch)
	if !known {
		return false, nil
	}
	got, err := entrypointMachine(img, entrypoint[0])
	if errors.Is(err, errNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s entrypoint: %w", name, err)
	}
	if got != want {
		return true, fmt.Errorf("%s entrypoint %s is built for ELF machine %d, not %s (%d): a binary of the wrong arch", name, entrypoint[0], got, arch, want)
	}
	return true, nil
}
