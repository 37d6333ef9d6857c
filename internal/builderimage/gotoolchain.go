package builderimage

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/gotoolchain"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/platform"
)

// The Go in the builder is the toolchain module the go command itself
// switches to, fetched by internal/gotoolchain and handed to the solve as
// a named context straight from the module cache. Nothing inside the
// build reaches for Go.

// goToolchains downloads each platform's toolchain module and returns the
// named context that serves exactly those zips from the module cache, as
// v0.0.1-goX.Y.Z.linux-ARCH.zip, the names the Dockerfile reads.
func goToolchains(ctx context.Context, goVersion string, platforms []platform.Platform, log io.Writer) (image.NamedContext, error) {
	nc := image.NamedContext{Exclude: []string{"*"}}
	for _, p := range platforms {
		fmt.Fprintf(log, "builder: go mod download %s\n", gotoolchain.Module(goVersion, p.GOARCH))
		got, err := gotoolchain.Download(ctx, goVersion, p.GOARCH)
		if err != nil {
			return image.NamedContext{}, err
		}
		if nc.Dir != "" && nc.Dir != filepath.Dir(got.Zip) {
			return image.NamedContext{}, fmt.Errorf("go mod download put the toolchains in two folders: %s and %s", nc.Dir, filepath.Dir(got.Zip))
		}
		nc.Dir = filepath.Dir(got.Zip)
		nc.Exclude = append(nc.Exclude, "!"+filepath.Base(got.Zip))
	}
	return nc, nil
}
