// Package report writes the JSON build report: what went into an image
// (pins, patch hashes, toolchains) and what came out (digests, sizes,
// stage timings).
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/vulns"
)

// Patch is one applied patch and the SHA-256 of its file.
type Patch struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// CAPI describes the C API source that was built.
type CAPI struct {
	Source string `json:"source"` // "pin" (the recipe's capi pin) or "local"
	// Repository is the pinned repository (credentials masked).
	Repository string `json:"repository,omitempty"`
	Commit     string `json:"commit,omitempty"`
	TreeHash   string `json:"treeHash"`
	Crate      string `json:"crate"`
	Library    string `json:"library"`
	Generation string `json:"generation"`
	// Features are the optional C API features the library has and the
	// variant tags chosen for it (the Go build tags the EPP was compiled
	// with).
	Features []string `json:"features,omitempty"`
	// Variants name the variant of each variant axis the library's header
	// declares, as "<axis>=<value>" (e.g. routers_result=9).
	Variants []string `json:"variants,omitempty"`
	// CargoFeatures are the crate's cargo features the library was built
	// with (--capi-features).
	CargoFeatures []string `json:"cargoFeatures,omitempty"`
	// Patches are the C API patches applied to the pinned checkout.
	Patches []Patch `json:"patches,omitempty"`
	// Version is the crate's version (its Cargo.toml, or the workspace's).
	Version string `json:"version,omitempty"`
}

// Toolchains are the versions of every compiler involved.
type Toolchains struct {
	Go           string            `json:"go"`
	Rustc        string            `json:"rustc"`
	Cargo        string            `json:"cargo"`
	CC           map[string]string `json:"cc"` // platform -> compiler and version
	BuildKit     string            `json:"buildkit,omitempty"`
	CompileMode  string            `json:"compileMode"`
	BaseImage    string            `json:"baseImage"`
	BuilderImage string            `json:"builderImage,omitempty"`
}

// Inputs is everything that determines the image.
type Inputs struct {
	Version string `json:"version,omitempty"`
	// Recipes is the recipe set the version's recipe was read from.
	Recipes *Recipes `json:"recipes,omitempty"`
	// Upstream is where the upstream tree was read (redacted URL, folder
	// or proxy and module@version).
	Upstream        string     `json:"upstream,omitempty"`
	UpstreamCommit  string     `json:"upstreamCommit"`
	SourceDateEpoch int64      `json:"sourceDateEpoch"`
	Patches         []Patch    `json:"patches"`
	CAPI            CAPI       `json:"capi"`
	Toolchains      Toolchains `json:"toolchains"`
	Platforms       []string   `json:"platforms"`
	// Fetch are the settings for what the solve fetched (fetch.go).
	Fetch *Fetch `json:"fetch,omitempty"`
	// Module is the upstream's own Go module, the EPP's main module, and
	// the version its pin names (nil when the tree has no go.mod).
	Module *GoModule `json:"module,omitempty"`
	// GoModules are the patched tree's go.sum: every module the build may
	// read, with the go command's hash of its content.
	GoModules []GoModule `json:"goModules,omitempty"`
}

// GoModule is a Go module at a version; Sum is its go.sum hash ("h1:",
// SHA-256 over the module's files, golang.org/x/mod/sumdb/dirhash).
type GoModule struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Sum     string `json:"sum,omitempty"`
}

// PlatformImage is one platform's image in the index.
type PlatformImage struct {
	Platform    string `json:"platform"`
	Digest      string `json:"digest"`
	Size        int64  `json:"size"`
	BinarySize  int64  `json:"binarySize,omitempty"`
	CAPICacheID string `json:"capiCacheKey,omitempty"`
	CAPICached  bool   `json:"capiCached"`
	// ArchChecked: the entrypoint's ELF machine matched the platform.
	ArchChecked bool `json:"archChecked"`
	// Node is the BuildKit address (credentials masked) that built it.
	Node string `json:"node,omitempty"`
}

// Smoke records which platforms ran the entrypoint.
type Smoke struct {
	Ran     []string          `json:"ran"`
	Skipped map[string]string `json:"skipped,omitempty"`
}

// Outputs is what the build produced.
type Outputs struct {
	Image       string          `json:"image,omitempty"` // the tag, when pushed
	IndexDigest string          `json:"indexDigest"`
	OCITar      string          `json:"ociTar,omitempty"`
	Images      []PlatformImage `json:"images"`
	Smoke       *Smoke          `json:"smoke,omitempty"`
}

// Timing is one stage's wall time.
type Timing struct {
	Stage   string  `json:"stage"`
	Seconds float64 `json:"seconds"`
}

// Report is the whole document.
type Report struct {
	Schema  int     `json:"schema"`
	Created string  `json:"created"`
	Inputs  Inputs  `json:"inputs"`
	Outputs Outputs `json:"outputs"`
	// Vulns is build --vulns's scan of the compiled binaries, each named
	// by platform and digest.
	Vulns   *vulns.Report `json:"vulns,omitempty"`
	Timings []Timing      `json:"timings"`
}

// New returns an empty report of the current schema.
func New() *Report {
	return &Report{Schema: 1, Created: time.Now().UTC().Format(time.RFC3339)}
}

// Time records how long a stage took.
func (r *Report) Time(stage string, d time.Duration) {
	r.Timings = append(r.Timings, Timing{Stage: stage, Seconds: d.Seconds()})
}

// Write stores the report as indented JSON, atomically.
func (r *Report) Write(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	if err := atomicfile.Write(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	return nil
}

// Read loads a report written by Write.
func Read(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("report %s: %w", path, err)
	}
	return &r, nil
}
