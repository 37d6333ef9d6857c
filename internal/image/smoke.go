package image

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/session"
	"github.com/tonistiigi/fsutil"
	"golang.org/x/sync/errgroup"

	"github.com/epp-build/epp-build/internal/progress"
)

// SmokeOptions say which pushed image to run and how to report.
type SmokeOptions struct {
	Ref        string // repository@digest of the pushed index
	Images     []PlatformImage
	WorkDir    string // scratch folder for the smoke build context
	Progress   progress.Mode
	Out        io.Writer
	Keychain   authn.Keychain
	RunnableOn map[string]bool // platforms buildkitd can run; nil = ask it
}

// SmokeResult lists which platforms ran the entrypoint and which were
// skipped (with the reason).
type SmokeResult struct {
	Ran     []string          `json:"ran"`
	Skipped map[string]string `json:"skipped,omitempty"`
}

// SmokeError is a failed entrypoint run: wrong arch, missing loader,
// newer glibc than the base, or a crash.
type SmokeError struct {
	Platforms []string
	Err       error
}

func (e *SmokeError) Error() string {
	return fmt.Sprintf("smoke test (entrypoint --help) failed on %s: %v", strings.Join(e.Platforms, ","), e.Err)
}

func (e *SmokeError) Unwrap() error { return e.Err }

// Smoke runs each image's entrypoint with --help in a second solve, FROM
// the pushed image by digest. Platforms buildkitd cannot run (no qemu
// binfmt registration for arm64) are skipped with a notice.
func Smoke(ctx context.Context, c *client.Client, opt SmokeOptions) (*SmokeResult, error) {
	runnable := opt.RunnableOn
	if runnable == nil {
		var err error
		if runnable, err = WorkerPlatforms(ctx, c); err != nil {
			return nil, err
		}
	}
	out := outOrDiscard(opt.Out)
	res := &SmokeResult{Skipped: map[string]string{}}
	var platforms []string
	var entrypoint []string
	for _, img := range opt.Images {
		if !runnable[img.Platform] {
			res.Skipped[img.Platform] = "buildkitd cannot run " + img.Platform + " binaries (register qemu-user-static with binfmt_misc and restart buildkitd)"
			fmt.Fprintf(out, "smoke %s: skipped: %s\n", img.Platform, res.Skipped[img.Platform])
			continue
		}
		if len(img.Entrypoint) == 0 {
			return nil, &SmokeError{Platforms: []string{img.Platform}, Err: fmt.Errorf("image %s has no entrypoint", img.Digest)}
		}
		if entrypoint != nil && !slices.Equal(entrypoint, img.Entrypoint) {
			return nil, &SmokeError{Platforms: []string{img.Platform}, Err: fmt.Errorf("entrypoint %q differs from another platform's %q", img.Entrypoint, entrypoint)}
		}
		entrypoint = img.Entrypoint
		platforms = append(platforms, img.Platform)
	}
	if len(platforms) == 0 {
		return res, nil
	}
	dir, err := os.MkdirTemp(opt.WorkDir, "smoke-")
	if err != nil {
		return nil, fmt.Errorf("smoke context: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(SmokeDockerfile(opt.Ref, entrypoint)), 0o644); err != nil {
		return nil, err
	}
	fsys, err := fsutil.NewFS(dir)
	if err != nil {
		return nil, err
	}
	solveOpt := client.SolveOpt{
		Frontend:      "dockerfile.v0",
		FrontendAttrs: map[string]string{"filename": "Dockerfile", "platform": strings.Join(platforms, ",")},
		LocalMounts:   map[string]fsutil.FS{"context": fsys, "dockerfile": fsys},
		Session:       []session.Attachable{authAttachable(opt.Keychain)},
	}
	ch := make(chan *client.SolveStatus)
	eg, ectx := errgroup.WithContext(ctx)
	eg.Go(func() error {
		_, err := c.Solve(ectx, nil, solveOpt, ch)
		return err
	})
	eg.Go(func() error { return display(ctx, opt.Progress, opt.Out, ch) })
	if err := eg.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("smoke test cancelled: %w", ctx.Err())
		}
		return nil, &SmokeError{Platforms: platforms, Err: err}
	}
	res.Ran = platforms
	for _, p := range platforms {
		fmt.Fprintf(out, "smoke %s: %s --help ran\n", p, strings.Join(entrypoint, " "))
	}
	return res, nil
}
