package image

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/epp-build/epp-build/internal/redact"
)

// PlatformFile is one platform image's copy of a file.
type PlatformFile struct {
	Platform    string // os/arch
	ImageDigest string
	// Path is where the file was written on this machine.
	Path   string
	Digest string // sha256:<hex> of the content
	Size   int64
}

// MissingFileError is a platform image that lacks the file asked for.
type MissingFileError struct {
	Platform, ImageDigest, File string
}

func (e *MissingFileError) Error() string {
	return fmt.Sprintf("%s image %s has no regular file %s", e.Platform, e.ImageDigest, e.File)
}

// PullFile writes file (a path in the image) of every platform image at
// ref, an index or a single image, into dir/<os>-<arch>/, reading each
// image's layers as its filesystem has them (later layers and whiteouts
// win). Attestation manifests are not platforms.
func PullFile(ctx context.Context, ref, file, dir string, ro RegistryOptions) ([]PlatformFile, error) {
	r, err := name.ParseReference(ref, ro.nameOpts()...)
	if err != nil {
		return nil, fmt.Errorf("image %q: %w", redact.Text(ref), err)
	}
	registry := r.Context().RegistryStr()
	opts := ro.remoteOpts(ctx)
	desc, err := remote.Get(r, opts...)
	if err != nil {
		return nil, registryError(registry, fmt.Errorf("read %s: %w", redact.Text(ref), err))
	}
	images := map[string]v1.Image{}
	if desc.MediaType.IsIndex() {
		idx, err := desc.ImageIndex()
		if err != nil {
			return nil, registryError(registry, fmt.Errorf("read index %s: %w", redact.Text(ref), err))
		}
		m, err := idx.IndexManifest()
		if err != nil {
			return nil, registryError(registry, fmt.Errorf("read index %s: %w", redact.Text(ref), err))
		}
		for _, d := range m.Manifests {
			if d.Platform == nil || d.Platform.OS == "unknown" || !d.MediaType.IsImage() {
				continue
			}
			img, err := idx.Image(d.Digest)
			if err != nil {
				return nil, registryError(registry, fmt.Errorf("read %s image %s: %w", d.Platform, d.Digest, err))
			}
			images[d.Platform.OS+"/"+d.Platform.Architecture] = img
		}
	} else {
		img, err := desc.Image()
		if err != nil {
			return nil, registryError(registry, fmt.Errorf("read %s: %w", redact.Text(ref), err))
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			return nil, registryError(registry, fmt.Errorf("read the config of %s: %w", redact.Text(ref), err))
		}
		images[cfg.OS+"/"+cfg.Architecture] = img
	}
	if len(images) == 0 {
		return nil, fmt.Errorf("%s holds no platform image", redact.Text(ref))
	}
	var out []PlatformFile
	for platform, img := range images {
		pf, err := pullOne(img, platform, file, filepath.Join(dir, strings.ReplaceAll(platform, "/", "-")))
		if err != nil {
			var missing *MissingFileError
			if errors.As(err, &missing) {
				return nil, err
			}
			return nil, registryError(registry, err)
		}
		out = append(out, pf)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Platform < out[j].Platform })
	return out, nil
}

func pullOne(img v1.Image, platform, file, dir string) (PlatformFile, error) {
	d, err := img.Digest()
	if err != nil {
		return PlatformFile{}, err
	}
	pf := PlatformFile{Platform: platform, ImageDigest: d.String(), Path: filepath.Join(dir, path.Base(file))}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return pf, err
	}
	f, err := os.OpenFile(pf.Path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return pf, err
	}
	pf.Digest, pf.Size, err = copyImageFile(img, file, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, errNotFound) {
		return pf, &MissingFileError{Platform: platform, ImageDigest: pf.ImageDigest, File: file}
	}
	if err != nil {
		return pf, fmt.Errorf("%s image %s: read %s: %w", platform, pf.ImageDigest, file, err)
	}
	return pf, nil
}

// ImageFileDigest is the sha256:<hex> of file in img's filesystem;
// errNotFound (a *MissingFileError to callers of PullFile) when the image
// has no such regular file.
func ImageFileDigest(img v1.Image, file string) (string, error) {
	dgst, _, err := copyImageFile(img, file, io.Discard)
	if errors.Is(err, errNotFound) {
		return "", fmt.Errorf("no regular file %s", file)
	}
	return dgst, err
}

// copyImageFile copies file of img's flattened filesystem to w and
// returns its digest and size.
func copyImageFile(img v1.Image, file string, w io.Writer) (string, int64, error) {
	sum := sha256.New()
	var n int64
	err := readImageFile(img, file, func(r io.Reader) error {
		var err error
		n, err = io.Copy(io.MultiWriter(w, sum), r)
		return err
	})
	if err != nil {
		return "", 0, err
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)), n, nil
}

// readImageFile hands read the content of file, a regular file of img's
// flattened filesystem (later layers and whiteouts win); errNotFound
// when there is none.
func readImageFile(img v1.Image, file string, read func(io.Reader) error) error {
	want := strings.TrimPrefix(path.Clean("/"+file), "/")
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return errNotFound
		}
		if err != nil {
			return err
		}
		if strings.TrimPrefix(path.Clean("/"+h.Name), "/") == want && h.Typeflag == tar.TypeReg {
			return read(tr)
		}
	}
}
