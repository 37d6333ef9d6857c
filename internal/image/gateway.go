package image

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"strings"

	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/exporter/containerimage/exptypes"
	gateway "github.com/moby/buildkit/frontend/gateway/client"
	"github.com/tonistiigi/fsutil"
	"golang.org/x/sync/errgroup"
)

// A solve with SolveOptions.Prepare runs through BuildKit's gateway: in the
// same session, and as one build, Prepare first solves other stages of the
// Dockerfile and reads their files on this machine (checks that must run
// here, with this program's code), then the final target is solved with
// the build args Prepare returned, and that result is exported as a plain
// solve's would be. A stage both solves use is built once.

// PrepareFunc runs before the final target is solved; the build args it
// returns are added to the final solve's.
type PrepareFunc func(ctx context.Context, s StageSolver) (map[string]string, error)

// StageSolver solves stages of the solve's Dockerfile inside its session.
type StageSolver interface {
	// SolveStage solves the target stage for the platforms (the solve's
	// build args and contexts apply) and returns each platform's files.
	SolveStage(ctx context.Context, target string, platforms []string) (map[string]*StageFS, error)
	// SolveStageWith is SolveStage with more build args, such as the
	// ones Prepare returns for the final solve: a stage solved with the
	// same args there is built once.
	SolveStageWith(ctx context.Context, target string, platforms []string, args map[string]string) (map[string]*StageFS, error)
	// Platforms are the platforms this solve builds.
	Platforms() []string
}

// StageFS reads the files of one platform's solved stage.
type StageFS struct{ ref gateway.Reference }

// ReadFile reads a whole file (path relative to the stage's root).
func (s *StageFS) ReadFile(ctx context.Context, name string) ([]byte, error) {
	return s.ref.ReadFile(ctx, gateway.ReadRequest{Filename: name})
}

// ReadRange reads up to n bytes of a file at off; fewer at its end.
func (s *StageFS) ReadRange(ctx context.Context, name string, off, n int64) ([]byte, error) {
	return s.ref.ReadFile(ctx, gateway.ReadRequest{Filename: name, Range: &gateway.FileRange{Offset: int(off), Length: int(n)}})
}

// CopyFile writes a whole file (path relative to the stage's root) to w,
// in pieces: a binary can be larger than one gateway message.
func (s *StageFS) CopyFile(ctx context.Context, name string, w io.Writer) error {
	const piece = 1 << 20
	for off := int64(0); ; {
		data, err := s.ReadRange(ctx, name, off, piece)
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
		if len(data) < piece {
			return nil
		}
		off += int64(len(data))
	}
}

// Files lists the regular files under dir, recursively, relative to dir;
// none when dir does not exist.
func (s *StageFS) Files(ctx context.Context, dir string) ([]string, error) {
	if _, err := s.ref.StatFile(ctx, gateway.StatRequest{Path: dir}); err != nil {
		if notExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	var walk func(rel string) error
	walk = func(rel string) error {
		entries, err := s.ref.ReadDir(ctx, gateway.ReadDirRequest{Path: path.Join(dir, rel)})
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := path.Join(rel, path.Base(e.Path))
			switch mode := os.FileMode(e.Mode); {
			case mode.IsDir():
				if err := walk(p); err != nil {
					return err
				}
			case mode.IsRegular():
				out = append(out, p)
			}
		}
		return nil
	}
	return out, walk("")
}

func notExist(err error) bool {
	return errors.Is(err, os.ErrNotExist) || strings.Contains(err.Error(), "no such file or directory") ||
		strings.Contains(err.Error(), "not found")
}

// prepareError carries Prepare's own error past BuildKit's wrapping, so a
// caller can branch on its type.
type prepareError struct{ err error }

func (e *prepareError) Error() string { return e.err.Error() }
func (e *prepareError) Unwrap() error { return e.err }

// solveWith runs the solve: a plain frontend solve, or, with prepare, a
// gateway build that runs prepare first.
func solveWith(ctx context.Context, c *client.Client, opt client.SolveOpt, prepare PrepareFunc, ch chan *client.SolveStatus) (*client.SolveResponse, error) {
	if prepare == nil {
		return c.Solve(ctx, nil, opt, ch)
	}
	var prepErr error
	resp, err := c.Build(ctx, opt, "epp-build", func(ctx context.Context, gc gateway.Client) (*gateway.Result, error) {
		// The frontend attributes as the client sent them, with what it
		// adds (cache-imports from SolveOpt.CacheImports): every solve
		// made here gets them, as a plain solve's frontend would.
		attrs := maps.Clone(gc.BuildOpts().Opts)
		args, err := prepare(ctx, &stageSolver{gc: gc, attrs: attrs})
		if err != nil {
			prepErr = err
			return nil, err
		}
		final := maps.Clone(attrs)
		for k, v := range args {
			final["build-arg:"+k] = v
		}
		return gc.Solve(ctx, gateway.SolveRequest{Frontend: dockerfileFrontend, FrontendOpt: final})
	}, ch)
	if prepErr != nil {
		return nil, &prepareError{err: prepErr}
	}
	return resp, err
}

// dockerfileFrontend is BuildKit's built-in Dockerfile frontend.
const dockerfileFrontend = "dockerfile.v0"

type stageSolver struct {
	gc    gateway.Client
	attrs map[string]string
}

func (s *stageSolver) Platforms() []string { return strings.Split(s.attrs["platform"], ",") }

func (s *stageSolver) SolveStage(ctx context.Context, target string, platforms []string) (map[string]*StageFS, error) {
	return s.SolveStageWith(ctx, target, platforms, nil)
}

func (s *stageSolver) SolveStageWith(ctx context.Context, target string, platforms []string, args map[string]string) (map[string]*StageFS, error) {
	opts := maps.Clone(s.attrs)
	for k, v := range args {
		opts["build-arg:"+k] = v
	}
	opts["target"] = target
	opts["platform"] = strings.Join(platforms, ",")
	res, err := s.gc.Solve(ctx, gateway.SolveRequest{Frontend: dockerfileFrontend, FrontendOpt: opts})
	if err != nil {
		return nil, fmt.Errorf("stage %s: %w", target, err)
	}
	out := map[string]*StageFS{}
	if len(res.Refs) == 0 {
		if res.Ref == nil || len(platforms) != 1 {
			return nil, fmt.Errorf("stage %s: BuildKit returned no result per platform", target)
		}
		out[platforms[0]] = &StageFS{ref: res.Ref}
		return out, nil
	}
	var ps exptypes.Platforms
	if err := json.Unmarshal(res.Metadata[exptypes.ExporterPlatformsKey], &ps); err != nil {
		return nil, fmt.Errorf("stage %s: the platforms of the result: %w", target, err)
	}
	// Build every platform's stage at once, as a plain solve would.
	g, gctx := errgroup.WithContext(ctx)
	for _, p := range ps.Platforms {
		ref, ok := res.Refs[p.ID]
		if !ok || ref == nil {
			return nil, fmt.Errorf("stage %s: no result for %s", target, p.ID)
		}
		out[p.Platform.OS+"/"+p.Platform.Architecture] = &StageFS{ref: ref}
		g.Go(func() error {
			if err := ref.Evaluate(gctx); err != nil {
				return fmt.Errorf("stage %s for %s: %w", target, p.ID, err)
			}
			return nil
		})
	}
	return out, g.Wait()
}

// NamedContext is a local folder the Dockerfile reads as COPY --from=NAME.
type NamedContext struct {
	Dir     string
	Exclude []string // patterns, as in .dockerignore
}

// addNamedContexts sends each named context from its folder.
func addNamedContexts(opt *client.SolveOpt, contexts map[string]NamedContext) error {
	for name, nc := range contexts {
		base, err := fsutil.NewFS(nc.Dir)
		if err != nil {
			return fmt.Errorf("build context %s (%s): %w", name, nc.Dir, err)
		}
		fs, err := fsutil.NewFilterFS(base, &fsutil.FilterOpt{ExcludePatterns: nc.Exclude})
		if err != nil {
			return fmt.Errorf("build context %s (%s): %w", name, nc.Dir, err)
		}
		opt.LocalMounts[name] = fs
		opt.FrontendAttrs["context:"+name] = "local:" + name
	}
	return nil
}
