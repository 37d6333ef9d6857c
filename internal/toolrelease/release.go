// Package toolrelease makes a release of epp-build itself: static binaries
// for every supported system, an SPDX SBOM per binary, SHA256SUMS over
// them and, with a key, a signature of SHA256SUMS that `cosign verify-blob`
// accepts. The same source, version and SOURCE_DATE_EPOCH give the same
// bytes: builds are -trimpath, without a build id or VCS stamp, and every
// date written is the source date.
package toolrelease

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

// Platforms are the systems a release has a binary for.
var Platforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"}

// Module is the main package a release builds.
const Module = "github.com/epp-build/epp-build/cmd/epp-build"

// Options say what to release.
type Options struct {
	// Version is the release's semantic version (v1.2.3, or a
	// pre-release such as v0.0.0-test).
	Version string
	// Source is the checkout to build; Dist the folder to write.
	Source, Dist string
	// Revision is the commit built, SourceDate its commit time
	// (SOURCE_DATE_EPOCH): both are stamped and dated into the output.
	Revision   string
	SourceDate time.Time
	// Key signs SHA256SUMS: a cosign key (password in $COSIGN_PASSWORD),
	// a PEM private key, or env://VAR. Empty: no signature.
	Key string
	// Go is the go command to build with.
	Go string
	// Toolchain is the Go release the binaries are built with (goX.Y.Z,
	// fetched by the go command through GOTOOLCHAIN as it fetches any
	// toolchain); empty: the go command's own. A release names one whose
	// standard library has no vulnerability epp-build calls (make lint
	// scans with the same).
	Toolchain string
	// Log receives one line per step.
	Log io.Writer
}

// Artifact is one file of a release.
type Artifact struct {
	Name     string `json:"name"`
	Platform string `json:"platform,omitempty"`
	Kind     string `json:"kind"` // binary, sbom, checksums, signature
	SHA256   string `json:"sha256,omitempty"`
}

// Result is what Make wrote into Options.Dist.
type Result struct {
	Version   string     `json:"version"`
	Revision  string     `json:"revision"`
	Artifacts []Artifact `json:"artifacts"`
}

// ChecksumsFile and SignatureFile are the names a verifier looks for.
const (
	ChecksumsFile = "SHA256SUMS"
	SignatureFile = "SHA256SUMS.sig"
)

// toolchainRelease is a Go release GOTOOLCHAIN can fetch: goX.Y.Z.
var toolchainRelease = regexp.MustCompile(`^go1\.[0-9]+\.[0-9]+$`)

// BinaryName is the file name of the binary for platform.
func BinaryName(version, platform string) string {
	return "epp-build-" + version + "-" + strings.ReplaceAll(platform, "/", "-")
}

func (o *Options) check() error {
	if !semver.IsValid(o.Version) || semver.Canonical(o.Version) != strings.SplitN(o.Version, "+", 2)[0] {
		return fmt.Errorf("release version %q: want a semantic version such as v1.2.3", o.Version)
	}
	if o.Revision == "" || o.SourceDate.IsZero() {
		return fmt.Errorf("release %s: the revision and its date (SOURCE_DATE_EPOCH) are required", o.Version)
	}
	if o.Go == "" {
		o.Go = "go"
	}
	if o.Toolchain != "" && !toolchainRelease.MatchString(o.Toolchain) {
		return fmt.Errorf("release toolchain %q: want a Go release such as go1.26.10", o.Toolchain)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return nil
}

// Make builds the release into o.Dist, which must not exist yet: it is
// written beside and renamed into place when whole, so a failed or
// interrupted release leaves no partial folder that looks finished.
func Make(ctx context.Context, o Options) (*Result, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(o.Dist); err == nil {
		return nil, fmt.Errorf("release: %s exists; remove it or name another --dist", o.Dist)
	}
	if err := os.MkdirAll(filepath.Dir(o.Dist), 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(filepath.Dir(o.Dist), "."+filepath.Base(o.Dist)+".partial-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	res := &Result{Version: o.Version, Revision: o.Revision}
	for _, p := range Platforms {
		name := BinaryName(o.Version, p)
		fmt.Fprintf(o.Log, "build %s\n", name)
		if err := buildBinary(ctx, o, p, filepath.Join(work, name)); err != nil {
			return nil, err
		}
		res.Artifacts = append(res.Artifacts, Artifact{Name: name, Platform: p, Kind: "binary"})
		sbom, err := binarySBOM(filepath.Join(work, name), name, o)
		if err != nil {
			return nil, fmt.Errorf("sbom of %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(work, name+".spdx.json"), sbom, 0o644); err != nil {
			return nil, err
		}
		res.Artifacts = append(res.Artifacts, Artifact{Name: name + ".spdx.json", Platform: p, Kind: "sbom"})
	}
	sums, err := checksums(work, res.Artifacts)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(work, ChecksumsFile), sums, 0o644); err != nil {
		return nil, err
	}
	res.Artifacts = append(res.Artifacts, Artifact{Name: ChecksumsFile, Kind: "checksums"})
	if o.Key != "" {
		fmt.Fprintf(o.Log, "sign %s\n", ChecksumsFile)
		sig, err := signChecksums(o.Key, sums)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(work, SignatureFile), sig, 0o644); err != nil {
			return nil, err
		}
		res.Artifacts = append(res.Artifacts, Artifact{Name: SignatureFile, Kind: "signature"})
	}
	if err := os.Rename(work, o.Dist); err != nil {
		return nil, fmt.Errorf("release: move into %s: %w", o.Dist, err)
	}
	return res, nil
}
