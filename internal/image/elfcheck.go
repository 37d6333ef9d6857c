package image

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/epp-build/epp-build/internal/platform"
)

var errNotFound = errors.New("not in the image")

// entrypointMachine reads the entrypoint file from the image's flattened
// filesystem and returns its ELF machine. A binary of the wrong arch runs
// anyway under qemu binfmt (and natively when it is the host's arch), so
// the smoke run alone cannot catch it; the ELF header can.
func entrypointMachine(img v1.Image, file string) (uint16, error) {
	var machine uint16
	err := readImageFile(img, file, func(r io.Reader) error {
		hdr := make([]byte, 20)
		if _, err := io.ReadFull(r, hdr); err != nil || string(hdr[:4]) != "\x7fELF" {
			return fmt.Errorf("/%s is not an ELF executable", strings.TrimPrefix(path.Clean("/"+file), "/"))
		}
		if hdr[5] == 2 { // big-endian
			machine = binary.BigEndian.Uint16(hdr[18:20])
		} else {
			machine = binary.LittleEndian.Uint16(hdr[18:20])
		}
		return nil
	})
	return machine, err
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
