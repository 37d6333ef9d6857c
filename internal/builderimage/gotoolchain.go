package builderimage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/platform"
)

// The Go in the builder is the toolchain module the go command itself
// switches to (golang.org/toolchain@v0.0.1-goX.Y.Z.linux-ARCH): fetched
// through the user's GOPROXY and checked against the checksum database by
// the go command, with every Go setting the user has, then handed to the
// solve as a named context straight from the module cache. Nothing inside
// the build reaches for Go.

// goToolchains downloads each platform's toolchain module and returns the
// named context that serves exactly those zips from the module cache, as
// v0.0.1-goX.Y.Z.linux-ARCH.zip, the names the Dockerfile reads.
func goToolchains(ctx context.Context, goVersion string, platforms []platform.Platform, log io.Writer) (image.NamedContext, error) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return image.NamedContext{}, errors.New("the Go toolchain of the builder is fetched and verified by the go command, which is not on PATH: install Go (https://go.dev/dl/)")
	}
	nc := image.NamedContext{Exclude: []string{"*"}}
	for _, p := range platforms {
		module := fmt.Sprintf("golang.org/toolchain@v0.0.1-%s.linux-%s", goVersion, p.GOARCH)
		fmt.Fprintf(log, "builder: go mod download %s\n", module)
		zip, err := downloadZip(ctx, gocmd, module)
		if err != nil {
			return image.NamedContext{}, err
		}
		if nc.Dir != "" && nc.Dir != filepath.Dir(zip) {
			return image.NamedContext{}, fmt.Errorf("go mod download put the toolchains in two folders: %s and %s", nc.Dir, filepath.Dir(zip))
		}
		nc.Dir = filepath.Dir(zip)
		nc.Exclude = append(nc.Exclude, "!"+filepath.Base(zip))
	}
	return nc, nil
}

// downloadZip runs go mod download outside any module (a go.mod in the
// working directory must not change what is fetched) and returns the
// verified zip's path in the module cache.
func downloadZip(ctx context.Context, gocmd, module string) (string, error) {
	cmd := exec.CommandContext(ctx, gocmd, "mod", "download", "-json", module)
	cmd.Dir = os.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var info struct{ Zip, Error string }
	if err := json.Unmarshal(stdout.Bytes(), &info); err != nil && runErr == nil {
		return "", fmt.Errorf("go mod download %s: unreadable answer: %w", module, err)
	}
	switch {
	case info.Error != "":
		return "", fmt.Errorf("go mod download %s: %s (is that a Go release? see https://go.dev/dl/)", module, info.Error)
	case runErr != nil:
		return "", fmt.Errorf("go mod download %s: %w: %s", module, runErr, bytes.TrimSpace(stderr.Bytes()))
	case info.Zip == "":
		return "", fmt.Errorf("go mod download %s: no zip in its answer", module)
	}
	return info.Zip, nil
}
