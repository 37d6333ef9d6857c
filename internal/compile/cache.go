package compile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/filetree"
	"github.com/epp-build/epp-build/internal/goenv"
)

// Go does not cache linked executables, and a static external link per
// arch is the slowest part of a warm rebuild; so binaries are cached by
// everything that goes into them: the module tree (go.sum pins the
// dependencies; the staged C API libraries are inside it), the package, the
// target, the compilers and the Go-relevant environment.

// envKeys are the variables that change what go build produces.
var envKeys = []string{"GOFLAGS", "GOEXPERIMENT", "GOAMD64", "GOARM64", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_LDFLAGS", "GOTOOLCHAIN", "GOPROXY", "GONOSUMDB"}

func binaryKey(ctx context.Context, base []string, opt HostOptions, t HostTarget, treeHash string) (string, error) {
	gover, err := toolVersion(ctx, base, "go", "env", "GOVERSION")
	if err != nil {
		return "", err
	}
	ccver, err := toolVersion(ctx, base, t.CC, "-dumpfullversion")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "compile-v1\ntree=%s\npkg=%s\narch=%s\ncc=%s %s\ngo=%s\nflags=%s\n",
		treeHash, opt.Package, t.Platform.GOARCH, t.CC, ccver, gover, strings.Join(buildFlags(opt.Tags), " "))
	// As go build will read them: a `go env -w GOFLAGS=...` changes the
	// binary as much as the variable does.
	env := goenv.Load(base)
	for _, k := range envKeys {
		fmt.Fprintf(h, "%s=%s\n", k, env.Get(k))
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

func toolVersion(ctx context.Context, environ []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = environ
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// treeHash fingerprints the Go module tree. Its files are hashed in path
// order, the order the cache's keys have always been made in.
func treeHash(dir string) (string, error) {
	return filetree.Hash(dir, filetree.HashOptions{Skip: []string{".git"}, PathOrder: true})
}

// copyExecutable replaces dst whole, so a concurrent build never runs
// half a binary and a binary that is running is replaced, not rewritten
// under it.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := atomicfile.Create(dst, 0o755)
	if err != nil {
		return err
	}
	defer out.Abort()
	if _, err := io.Copy(out, in); err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return out.Commit()
}
