package builderimage

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/platform"
)

// Result is what a builder build made: the report's fields.
type Result struct {
	Image      string     `json:"image"` // repository@digest
	Tag        string     `json:"tag,omitempty"`
	Digest     string     `json:"digest"`
	Platforms  []string   `json:"platforms"`
	Base       string     `json:"base"`
	Toolchains Toolchains `json:"toolchains"`
	OCITar     string     `json:"ociTar,omitempty"`
	Pushed     bool       `json:"pushed"`
	Seconds    float64    `json:"seconds"`
}

// Build fetches the Go toolchains, solves the builder for every platform
// in one BuildKit solve (the toolchain stage is solved first and its
// versions read, then the labelled image is exported from the same
// stage), pushes it by digest and tags it last, so a tag never names a
// half-built image.
func Build(ctx context.Context, p *Plan, log io.Writer) (*Result, error) {
	start := time.Now()
	work, err := os.MkdirTemp("", "epp-build-builder-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "Dockerfile"), dockerfile, 0o644); err != nil {
		return nil, err
	}
	goZips, err := goToolchains(ctx, p.GoVersion, p.Platforms, log)
	if err != nil {
		return nil, err
	}
	args, err := buildArgs(p)
	if err != nil {
		return nil, err
	}
	addr, err := image.Address(p.BuildKit)
	if err != nil {
		return nil, err
	}
	c, err := image.Connect(ctx, addr, p.TLS)
	if err != nil {
		return nil, err
	}
	defer c.Close()

	var tools Toolchains
	res, err := image.Solve(ctx, c, image.SolveOptions{
		ContextDir: work, Platforms: platform.Strings(p.Platforms), BuildArgs: args,
		Contexts:   map[string]image.NamedContext{"go": goZips},
		Repository: p.Target.Repository.Name(), Push: p.Push, OCITar: p.OCITar, ImageName: p.Target.Name(),
		Insecure: p.Insecure, Progress: p.Progress, Out: log, Node: addr,
		CacheImports: p.CacheImports, CacheExports: p.CacheExports,
		// A builder is gigabytes: zstd is several times faster to push.
		Compression: "zstd",
		Prepare: func(ctx context.Context, s image.StageSolver) (map[string]string, error) {
			stages, err := s.SolveStage(ctx, "versions", s.Platforms())
			if err != nil {
				return nil, err
			}
			per := map[string]Toolchains{}
			for plat, fs := range stages {
				data, err := fs.ReadFile(ctx, versionsFile)
				if err != nil {
					return nil, fmt.Errorf("read the toolchain versions of %s: %w", plat, err)
				}
				if per[plat], err = parseVersions(data); err != nil {
					return nil, fmt.Errorf("%s: %w", plat, err)
				}
			}
			if tools, err = sameToolchains(per); err != nil {
				return nil, err
			}
			if tools.Go != p.GoVersion {
				return nil, fmt.Errorf("the builder's go says %s, %s was installed", tools.Go, p.GoVersion)
			}
			return tools.buildArgs(), nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("build the builder image: %w", err)
	}
	out := &Result{Digest: res.Digest, Image: p.Target.Ref(res.Digest), Platforms: platform.Strings(p.Platforms),
		Base: p.Base.String(), Toolchains: tools, OCITar: p.OCITar, Pushed: p.Push}
	if p.Push && p.Target.Tag != "" {
		if err := image.Tag(ctx, p.Target.Tag, out.Image, image.RegistryOptions{Insecure: p.Insecure}); err != nil {
			return nil, err
		}
		out.Tag = p.Target.Tag
	}
	out.Seconds = time.Since(start).Seconds()
	return out, nil
}

// WriteReport writes the result as JSON, whole or not at all.
func WriteReport(path string, r *Result) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write the builder report %s: %w", path, err)
	}
	return nil
}
