// Package gotoolchain fetches a Go release as the go command fetches a
// toolchain it switches to: the module
// golang.org/toolchain@v0.0.1-goX.Y.Z.linux-ARCH, through the user's
// GOPROXY and checked against the checksum database by the go command
// itself, with every Go setting the user has (environment and go env
// file alike).
package gotoolchain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// ModulePath is the module the go command fetches toolchains as.
const ModulePath = "golang.org/toolchain"

// Module is the toolchain module of goVersion (go1.26.10) for linux on
// goarch, as module@version.
func Module(goVersion, goarch string) string {
	return fmt.Sprintf("%s@v0.0.1-%s.linux-%s", ModulePath, goVersion, goarch)
}

// Downloaded is one toolchain module in the module cache.
type Downloaded struct {
	// Module is module@version.
	Module string
	// Zip is the verified module zip.
	Zip string
	// Dir is the zip unpacked: a GOROOT whose files carry no executable
	// bits (a module zip keeps no modes; the go command sets them on
	// bin/ and pkg/tool/ when it switches to a toolchain).
	Dir string
}

// ErrNoGoCommand is returned when there is no go command to fetch with.
var ErrNoGoCommand = errors.New("the Go toolchain is fetched and verified by the go command, which is not on PATH: install Go (https://go.dev/dl/)")

// Download fetches goVersion's toolchain module for linux on goarch.
func Download(ctx context.Context, goVersion, goarch string) (Downloaded, error) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return Downloaded{}, ErrNoGoCommand
	}
	return download(ctx, gocmd, Module(goVersion, goarch))
}

// download runs go mod download outside any module (a go.mod in the
// working directory must not change what is fetched).
func download(ctx context.Context, gocmd, module string) (Downloaded, error) {
	cmd := exec.CommandContext(ctx, gocmd, "mod", "download", "-json", module)
	cmd.Dir = os.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var info struct{ Zip, Dir, Error string }
	if err := json.Unmarshal(stdout.Bytes(), &info); err != nil && runErr == nil {
		return Downloaded{}, fmt.Errorf("go mod download %s: unreadable answer: %w", module, err)
	}
	switch {
	case info.Error != "":
		return Downloaded{}, fmt.Errorf("go mod download %s: %s (is that a Go release? see https://go.dev/dl/)", module, info.Error)
	case runErr != nil:
		return Downloaded{}, fmt.Errorf("go mod download %s: %w: %s", module, runErr, bytes.TrimSpace(stderr.Bytes()))
	case info.Zip == "" || info.Dir == "":
		return Downloaded{}, fmt.Errorf("go mod download %s: no zip or folder in its answer", module)
	}
	return Downloaded{Module: module, Zip: info.Zip, Dir: info.Dir}, nil
}
