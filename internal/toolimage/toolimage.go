// Package toolimage builds the image of epp-build itself from a release
// folder: the release's own linux binaries, on a Debian base with git, CA
// certificates and ssh, as an unprivileged user, for every linux platform
// of the release, in one BuildKit solve; pushed by digest and tagged last.
package toolimage

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/moby/buildkit/client"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/progress"
)

//go:embed Dockerfile
var dockerfile []byte

// DefaultBase is the base when none is given.
const DefaultBase = "docker.io/library/debian:bookworm-slim"

// Platforms are the platforms of the image: the release's linux ones.
var Platforms = []string{"linux/amd64", "linux/arm64"}

// User is the image's user and group id: not root, the id distroless and
// ko images use.
const User = "65532:65532"

// Options say which release folder to package and where to push.
type Options struct {
	Dist string // release folder with epp-build-VERSION-linux-ARCH binaries
	// BinaryPrefix is the binaries' name up to the platform
	// ("epp-build-v1.2.3-").
	BinaryPrefix string
	Version      string
	Revision     string
	Platforms    []string
	Base         string
	Image        string // REPOSITORY[:TAG]
	Push         bool
	OCITar       string
	BuildKit     string
	Insecure     bool
	Progress     progress.Mode
	// CacheImports and CacheExports keep the package install between
	// builds (image.ParseCache makes them from --cache-from/--cache-to).
	CacheImports, CacheExports []client.CacheOptionsEntry
}

// Result is the pushed image.
type Result struct {
	Image     string   `json:"image"` // repository@digest
	Tag       string   `json:"tag,omitempty"`
	Digest    string   `json:"digest"`
	Platforms []string `json:"platforms"`
	Base      string   `json:"base"`
}

// Build packages the release folder's linux binaries.
func Build(ctx context.Context, o Options, log io.Writer) (*Result, error) {
	target, err := image.ParseTarget(o.Image, o.Insecure)
	if err != nil {
		return nil, fmt.Errorf("tool image: %w", err)
	}
	base := o.Base
	if base == "" {
		base = DefaultBase
	}
	// The release folder is a named context that sends only the binaries
	// the image copies.
	dist := image.NamedContext{Dir: o.Dist, Exclude: []string{"*"}}
	for _, p := range o.Platforms {
		name := o.BinaryPrefix + "linux-" + filepath.Base(p)
		if filepath.Dir(p) != "linux" {
			return nil, fmt.Errorf("tool image: %s is not a linux platform", p)
		}
		if _, err := os.Stat(filepath.Join(o.Dist, name)); err != nil {
			return nil, fmt.Errorf("tool image for %s: the release folder has no %s (make release writes it): %w", p, name, err)
		}
		dist.Exclude = append(dist.Exclude, "!"+name)
	}
	work, err := os.MkdirTemp("", "epp-build-toolimage-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "Dockerfile"), dockerfile, 0o644); err != nil {
		return nil, err
	}
	addr, err := image.Address(o.BuildKit)
	if err != nil {
		return nil, err
	}
	c, err := image.Connect(ctx, addr, image.TLSOptions{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	res, err := image.Solve(ctx, c, image.SolveOptions{
		ContextDir: work, Platforms: slices.Clone(o.Platforms), Contexts: map[string]image.NamedContext{"dist": dist},
		BuildArgs: map[string]string{"BASE_IMAGE": base, "BINARY_PREFIX": o.BinaryPrefix},
		Labels: map[string]string{
			"org.opencontainers.image.title":     "epp-build",
			"org.opencontainers.image.version":   o.Version,
			"org.opencontainers.image.revision":  o.Revision,
			"org.opencontainers.image.base.name": base,
			"org.opencontainers.image.licenses":  "Apache-2.0",
		},
		Repository: target.Repository.Name(), Push: o.Push, OCITar: o.OCITar, ImageName: target.Name(),
		Insecure: o.Insecure, Progress: o.Progress, Out: log, Node: addr,
		CacheImports: o.CacheImports, CacheExports: o.CacheExports,
	})
	if err != nil {
		return nil, fmt.Errorf("build the tool image: %w", err)
	}
	out := &Result{Image: target.Ref(res.Digest), Digest: res.Digest, Platforms: o.Platforms, Base: base}
	if o.Push && target.Tag != "" {
		if err := image.Tag(ctx, target.Tag, out.Image, image.RegistryOptions{Insecure: o.Insecure}); err != nil {
			return nil, err
		}
		out.Tag = target.Tag
	}
	return out, nil
}
