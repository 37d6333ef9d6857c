package vulns

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/redact"
)

// imageBinary is where epp-build's images keep the EPP.
const imageBinary = "/epp"

// pullImages writes each platform's imageBinary of every image into a
// temporary folder and names each by its image, platform and digest; the
// returned cleanup removes the folder.
func pullImages(ctx context.Context, images []string, ro image.RegistryOptions) ([]Binary, func(), error) {
	if len(images) == 0 {
		return nil, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "epp-build-vulns-image-")
	if err != nil {
		return nil, func() {}, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	var out []Binary
	for i, ref := range images {
		files, err := image.PullFile(ctx, ref, imageBinary, filepath.Join(dir, strconv.Itoa(i)), ro)
		if err != nil {
			cleanup()
			return nil, func() {}, fmt.Errorf("--image %s: %w", redact.Text(ref), err)
		}
		for _, f := range files {
			out = append(out, Binary{Name: redact.Text(ref) + " " + f.Platform + " (" + f.ImageDigest + ")", Platform: f.Platform, Path: f.Path})
		}
	}
	return out, cleanup, nil
}
