package image

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// VerifyOCITar checks the multi-platform index inside an OCI tarball the
// same way Verify checks a pushed one.
func VerifyOCITar(path string, platforms []string) (*Verified, error) {
	idx, closeTar, err := OpenOCITar(path)
	if err != nil {
		return nil, err
	}
	defer closeTar()
	return verifyIndex(idx, path, platforms)
}

// OpenOCITar unpacks an OCI tarball into a temporary folder and returns the
// one image index it holds; closeTar removes the folder.
func OpenOCITar(path string) (idx v1.ImageIndex, closeTar func(), err error) {
	dir, err := os.MkdirTemp("", "epp-oci-")
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	if err := untar(path, dir); err != nil {
		return nil, nil, fmt.Errorf("OCI tarball %s: %w", path, err)
	}
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("OCI tarball %s: %w", path, err)
	}
	im, err := top.IndexManifest()
	if err != nil {
		return nil, nil, fmt.Errorf("OCI tarball %s: %w", path, err)
	}
	if len(im.Manifests) != 1 || !im.Manifests[0].MediaType.IsIndex() {
		return nil, nil, fmt.Errorf("OCI tarball %s: index.json should point at one image index, found %d entries", path, len(im.Manifests))
	}
	idx, err = top.ImageIndex(im.Manifests[0].Digest)
	if err != nil {
		return nil, nil, fmt.Errorf("OCI tarball %s: %w", path, err)
	}
	return idx, func() { os.RemoveAll(dir) }, nil
}

func untar(path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		clean := filepath.Clean(h.Name)
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return fmt.Errorf("entry %q escapes the layout", h.Name)
		}
		target := filepath.Join(dir, clean)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.Create(target)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, tr); err != nil {
				out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
		}
	}
}
