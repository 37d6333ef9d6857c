// Package compile cross-compiles the EPP binary for each target platform on
// this machine (cgo with the target's C compiler and static library) and
// caches the linked binaries. It writes no Dockerfile: internal/image makes
// both the one that packs these binaries and the one of the in-container
// alternative, which compiles inside the BuildKit solve instead of here.
package compile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/epp-build/epp-build/internal/platform"
)

// HostTarget is what one platform's build needs.
type HostTarget struct {
	Platform platform.Platform
	// CC is the C compiler found for that arch (the C API's toolchain), which
	// may differ from the table's name: a path, or $CC.
	CC     string
	LibDir string // folder holding the static C API library for that arch
}

// HostOptions describes a host-mode build of one Go main package.
type HostOptions struct {
	ModuleDir string // Go module root (the patched upstream copy)
	Package   string // main package, e.g. ./cmd/epp
	OutDir    string // binaries go to OutDir/<goarch>/<BinaryName>
	Binary    string // e.g. epp
	Targets   []HostTarget
	Env       []string // base environment; nil = os.Environ()
	Log       io.Writer
	// CacheDir, when set, caches linked binaries by their inputs.
	CacheDir string
	// Tags are extra Go build tags: the optional C API features the
	// linked library has (see capi.Feature).
	Tags []string
	// Toolchain is the Go release to build with (goX.Y.Z, the recipe's
	// toolchain); empty builds with the go command at hand.
	Toolchain string
}

// Binary is one built executable.
type Binary struct {
	Platform platform.Platform
	Path     string
	Size     int64
	Duration time.Duration
	Cached   bool
	// GoVersion is the Go that built the binary, from its build info.
	GoVersion string
}

// GoFlags are the go command flags that decide how each package of the
// EPP compiles, with extra build tags (the link flags aside). Each flag is
// one word, so they also fit GOFLAGS. A test that compiles a GAIE tree
// with them shares the build cache with the image build of that tree.
func GoFlags(tags []string) []string {
	return []string{"-trimpath", "-buildvcs=false", "-tags=" + strings.Join(append([]string{"netgo", "osusergo"}, tags...), ",")}
}

// buildFlags are the go build flags for a static, reproducible binary,
// with extra build tags.
func buildFlags(tags []string) []string {
	return append(GoFlags(tags), "-ldflags", `-s -w -linkmode external -extldflags "-static"`)
}

// GoBuildError carries the tail of go build's output.
type GoBuildError struct {
	Platform string
	Err      error
	Output   string
}

func (e *GoBuildError) Error() string {
	return fmt.Sprintf("go build for %s failed: %v\n%s", e.Platform, e.Err, e.Output)
}

func (e *GoBuildError) Unwrap() error { return e.Err }

// Host builds the binaries for all targets concurrently. Linking is fully
// static so the binary runs on any base image, scratch included.
func Host(ctx context.Context, opt HostOptions) ([]Binary, error) {
	if err := CheckSystem("compiling the EPP on the host", ""); err != nil {
		return nil, err
	}
	base := opt.Env
	if base == nil {
		base = os.Environ()
	}
	if opt.Toolchain != "" {
		// The go command fetches the release as any toolchain it switches
		// to (GOPROXY, GOSUMDB), and the cache key sees the switch.
		base = append(append([]string(nil), base...), "GOTOOLCHAIN="+opt.Toolchain)
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	var mu sync.Mutex
	out := make([]Binary, len(opt.Targets))
	var tree string
	if opt.CacheDir != "" {
		var err error
		if tree, err = treeHash(opt.ModuleDir); err != nil {
			return nil, fmt.Errorf("hash %s: %w", opt.ModuleDir, err)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	for i, t := range opt.Targets {
		g.Go(func() error {
			start := time.Now()
			dst := filepath.Join(opt.OutDir, t.Platform.GOARCH, opt.Binary)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			var cached string
			if tree != "" {
				key, err := binaryKey(gctx, base, opt, t, tree)
				if err != nil {
					return err
				}
				cached = filepath.Join(opt.CacheDir, "bin", key, opt.Binary)
				if _, err := os.Stat(cached); err == nil {
					if err := copyExecutable(cached, dst); err != nil {
						return err
					}
					st, _ := os.Stat(dst)
					gover, err := builtWith(dst, opt.Toolchain)
					if err != nil {
						return err
					}
					out[i] = Binary{Platform: t.Platform, Path: dst, Size: st.Size(), Duration: time.Since(start), Cached: true, GoVersion: gover}
					mu.Lock()
					fmt.Fprintf(log, "compile %s: cached (%s)\n", t.Platform, key)
					mu.Unlock()
					return nil
				}
			}
			args := append(append([]string{"build"}, buildFlags(opt.Tags)...), "-o", dst, opt.Package)
			cmd := exec.CommandContext(gctx, "go", args...)
			cmd.Dir = opt.ModuleDir
			killGroupOnCancel(cmd)
			// GOWORK=off: the module at the tree's root is what ships; a
			// go.work may list nested modules a module-proxy tree omits.
			cmd.Env = append(append([]string(nil), base...), "GOWORK=off",
				"CGO_ENABLED=1", "GOOS="+t.Platform.GOOS, "GOARCH="+t.Platform.GOARCH, "CC="+t.CC,
				"CGO_LDFLAGS=-L"+t.LibDir)
			var buf bytes.Buffer
			cmd.Stdout, cmd.Stderr = &buf, &buf
			if err := cmd.Run(); err != nil {
				if gctx.Err() != nil {
					return fmt.Errorf("go build for %s: %w", t.Platform, gctx.Err())
				}
				return &GoBuildError{Platform: t.Platform.String(), Err: err, Output: tailLines(buf.String(), 30)}
			}
			st, err := os.Stat(dst)
			if err != nil {
				return err
			}
			gover, err := builtWith(dst, opt.Toolchain)
			if err != nil {
				return err
			}
			if cached != "" {
				if err := copyExecutable(dst, cached); err != nil {
					return fmt.Errorf("cache binary for %s: %w", t.Platform, err)
				}
			}
			out[i] = Binary{Platform: t.Platform, Path: dst, Size: st.Size(), Duration: time.Since(start), GoVersion: gover}
			mu.Lock()
			fmt.Fprintf(log, "compile %s: %s (%d bytes) in %s\n", t.Platform, dst, st.Size(), out[i].Duration.Round(time.Millisecond))
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// killGroupOnCancel runs cmd in its own process group and kills the whole
// group on cancellation, so compiler children do not outlive a cancelled
// build.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
