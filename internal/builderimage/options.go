// Package builderimage builds the image the container compile mode
// compiles in: Go, Rust with the standard library of every target
// platform, cbindgen and gcc for both architectures, FROM a Debian image
// the user names, for every build platform, in one BuildKit solve. The
// Dockerfile lives beside this file; the package supplies what a Dockerfile
// cannot know by itself (the package list of each build architecture, the
// Go toolchain the go command verified) and labels the result with the
// versions read from inside it.
package builderimage

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/moby/buildkit/client"
	"golang.org/x/mod/semver"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/platform"
	"github.com/epp-build/epp-build/internal/progress"
)

// DefaultBase is the base when --base is not given: Debian's own image of
// the release whose Rust (rustc-web) is new enough for the Dynamo crates.
const DefaultBase = "docker.io/library/debian:bookworm"

// Options are the builder image's flags, as given.
type Options struct {
	Base      string   // base image reference
	Platforms []string // build platforms the image is made for
	Image     string   // where to push: REPOSITORY[:TAG]
	Push      bool
	OCITar    string // also write the index as an OCI tarball
	// GoVersion is the Go release to install (1.26.8 or go1.26.8); default
	// the release this program was built with.
	GoVersion string
	BuildKit  string
	TLS       image.TLSOptions
	Insecure  bool
	Progress  progress.Mode
	// CacheFrom and CacheTo are build's --cache-from and --cache-to: a
	// builder rebuilt from a kept cache skips its package installs.
	CacheFrom, CacheTo []string
}

// Plan is Options checked and parsed, before any work.
type Plan struct {
	Base      name.Reference
	Platforms []platform.Platform
	Target    image.Target
	Push      bool
	OCITar    string
	GoVersion string // go1.26.8
	BuildKit  string
	TLS       image.TLSOptions
	Insecure  bool
	Progress  progress.Mode

	CacheImports, CacheExports []client.CacheOptionsEntry
}

// OptionsError is a flag value the builder cannot use; nothing was fetched
// or built.
type OptionsError struct{ Flag, Msg string }

func (e *OptionsError) Error() string { return e.Flag + ": " + e.Msg }

// CLIExitCode is the usage exit code: the flags are wrong, not the world.
func (e *OptionsError) CLIExitCode() int { return 2 }

// Resolve checks the options and parses each value once.
func Resolve(o Options) (*Plan, error) {
	nameOpts := []name.Option{}
	if o.Insecure {
		nameOpts = append(nameOpts, name.Insecure)
	}
	base := o.Base
	if base == "" {
		base = DefaultBase
	}
	p := &Plan{Push: o.Push, OCITar: o.OCITar, BuildKit: o.BuildKit, TLS: o.TLS, Insecure: o.Insecure, Progress: o.Progress}
	var err error
	if p.Base, err = name.ParseReference(base, nameOpts...); err != nil {
		return nil, &OptionsError{"--base", fmt.Sprintf("%q is not an image reference: %v", base, err)}
	}
	specs := o.Platforms
	if len(specs) == 0 {
		specs = platform.Supported
	}
	if p.Platforms, err = platform.Parse(specs); err != nil {
		return nil, &OptionsError{"--platform", err.Error()}
	}
	if !o.Push && o.OCITar == "" {
		return nil, &OptionsError{"--push", "nothing to export: pass --push (with --image) and/or --oci-tar FILE"}
	}
	if o.Image == "" {
		if o.Push {
			return nil, &OptionsError{"--image", "--push needs the repository to push to, such as --image registry.example/epp-build/builder:bookworm"}
		}
		o.Image = "epp-build/builder"
	}
	if p.Target, err = image.ParseTarget(o.Image, o.Insecure); err != nil {
		return nil, &OptionsError{"--image", err.Error()}
	}
	if p.CacheImports, err = image.ParseCache(o.CacheFrom, image.CacheImport, o.Insecure); err != nil {
		return nil, &OptionsError{"--cache-from", err.Error()}
	}
	if p.CacheExports, err = image.ParseCache(o.CacheTo, image.CacheExport, o.Insecure); err != nil {
		return nil, &OptionsError{"--cache-to", err.Error()}
	}
	if p.GoVersion, err = goVersion(o.GoVersion); err != nil {
		return nil, err
	}
	return p, nil
}

// goVersion normalises a Go release to go1.X.Y; the default is the release
// that built this program, which the tool's own tests run on.
func goVersion(v string) (string, error) {
	if v == "" {
		v = runtime.Version()
	}
	v = strings.TrimPrefix(v, "go")
	if !semver.IsValid("v"+v) || strings.Count(v, ".") != 2 {
		return "", &OptionsError{"--go", fmt.Sprintf("%q is not a Go release: give one such as 1.26.8", v)}
	}
	return "go" + v, nil
}
