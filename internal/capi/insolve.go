package capi

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The C API can also be built inside the image solve (the container compile
// mode): InSolveScript runs in the builder image for each target platform,
// and CheckSolved reads what it wrote back through the solve, checks the
// binding against it and decides the optional features, as Build and
// Stage do on the host.

//go:embed insolve.sh
var inSolveScript []byte

// InSolveScript is the shell script the solve's C API stages run ("lib"
// builds the library for $TARGETARCH, "cbindgen" writes the header with the
// cbindgen CLI). Its output folder's layout is what CheckSolved reads.
func InSolveScript() []byte { return slices.Clone(inSolveScript) }

// SolveSpec says what the in-solve build builds: the same fields as
// Options, for one workspace.
type SolveSpec struct {
	Crate      string
	Library    string
	CrateDir   string // crate folder relative to the workspace root ("" = root)
	Features   []string
	HeaderName string // optional: which header file is the C API's
}

// BuildArgs are the script's settings as Dockerfile build args.
func (s SolveSpec) BuildArgs() map[string]string {
	return map[string]string{
		"CAPI_CRATE":         s.Crate,
		"CAPI_LIBRARY":       s.Library,
		"CAPI_CRATE_DIR":     filepath.ToSlash(s.CrateDir),
		"CAPI_FEATURES":      strings.Join(s.Features, ","),
		"CAPI_TARGET_SUFFIX": featureSuffix(s.Features),
		"CAPI_HEADER_NAME":   s.HeaderName,
	}
}

// SolvedFS reads one platform's C API stage output inside the solve.
type SolvedFS interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// ReadRange returns up to n bytes at off (fewer at the end).
	ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error)
	// Files lists the regular files under dir, recursively, as paths
	// relative to dir; none when dir does not exist.
	Files(ctx context.Context, dir string) ([]string, error)
}

// SolvedCheck is what CheckSolved needs besides the solve's output.
type SolvedCheck struct {
	Spec          SolveSpec
	CrateDir      string // the crate folder on this machine (its include/ is read here)
	BindingDir    string // the cgo binding in the EPP's tree on this machine
	BindingHeader string
	// Cbindgen solves the cbindgen stage when the crate's build did not
	// write a header; called at most once.
	Cbindgen func(ctx context.Context) (SolvedFS, error)
}

// SolvedResult is the outcome of the in-solve C API build.
type SolvedResult struct {
	Features []Feature
	// Headers names each platform's library header (for messages).
	Headers map[string]string
	// Rustc, Cargo and Go are the builder's versions; CC each platform's
	// compiler and version.
	Rustc, Cargo, Go string
	CC               map[string]string
}

// CheckSolved picks each platform's library header as the host build does
// (the library package's build-script output, then the crate's include/,
// then cbindgen), checks the binding's prototypes against it (a mismatch
// is a *cheader.MismatchError in the chain, as in Stage) and decides the
// optional features against the headers and archives. out maps platform
// to its stage output.
func CheckSolved(ctx context.Context, out map[string]SolvedFS, platforms []string, c SolvedCheck) (*SolvedResult, error) {
	res := &SolvedResult{Headers: map[string]string{}, CC: map[string]string{}}
	var cbindgenHeader *Library
	var libs []Library
	for _, platform := range platforms {
		fsys, ok := out[platform]
		if !ok {
			return nil, fmt.Errorf("C API in the solve: no output for %s", platform)
		}
		name, header, err := solvedHeader(ctx, fsys, platform, c)
		if err != nil {
			return nil, err
		}
		if header == nil { // cbindgen: one header for every platform
			if cbindgenHeader == nil {
				if cbindgenHeader, err = solvedCbindgen(ctx, c); err != nil {
					return nil, err
				}
			}
			name, header = cbindgenHeader.HeaderName, cbindgenHeader.Header
		}
		res.Headers[platform] = name
		libPath := path.Join("lib", "lib"+c.Spec.Library+".a")
		libs = append(libs, Library{Platform: platform, HeaderName: name, Header: header,
			Symbols: func() (map[string]bool, error) {
				return ReadArchiveSymbols(libPath+" for "+platform, func(off, n int64) ([]byte, error) {
					return fsys.ReadRange(ctx, libPath, off, n)
				})
			}})
		if err := readToolchain(ctx, fsys, platform, res); err != nil {
			return nil, err
		}
	}
	features, err := CheckLibraries(c.BindingDir, c.BindingHeader, libs)
	if err != nil {
		return nil, err
	}
	res.Features = features
	return res, nil
}

// solvedHeader returns the header cargo's build wrote (from the library
// package's OUT_DIR) or the crate's include/ holds; nil header means
// cbindgen must write it.
func solvedHeader(ctx context.Context, fsys SolvedFS, platform string, c SolvedCheck) (string, []byte, error) {
	msgs, err := fsys.ReadFile(ctx, "cargo-messages.json")
	if err != nil {
		return "", nil, fmt.Errorf("C API for %s: cargo's messages: %w", platform, err)
	}
	outDirs, err := libraryOutDirs(bytes.NewReader(msgs))
	if err != nil {
		return "", nil, fmt.Errorf("C API for %s: cargo's messages: %w", platform, err)
	}
	var outHeaders []string
	for _, dir := range outDirs {
		files, err := fsys.Files(ctx, path.Join("outdirs", dir))
		if err != nil {
			return "", nil, fmt.Errorf("C API for %s: build-script output %s: %w", platform, dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, ".h") {
				outHeaders = append(outHeaders, path.Join("outdirs", dir, f))
			}
		}
	}
	slices.Sort(outHeaders)
	h, err := pick(outHeaders, c.Spec.HeaderName, "the build script's output "+strings.Join(outDirs, ", "))
	if err != nil {
		return "", nil, err
	}
	if h != "" {
		data, err := fsys.ReadFile(ctx, h)
		if err != nil {
			return "", nil, fmt.Errorf("C API header for %s: %w", platform, err)
		}
		return path.Base(h), data, nil
	}
	inc := filepath.Join(c.CrateDir, "include")
	if h, err = pick(globHeaders(inc, func(string) bool { return true }), c.Spec.HeaderName, inc); err != nil {
		return "", nil, err
	}
	if h != "" {
		data, err := os.ReadFile(h)
		return filepath.Base(h), data, err
	}
	if len(c.Spec.Features) > 0 {
		return "", nil, fmt.Errorf("C API crate %s built with features %s wrote no header and has none in include/: "+
			"cbindgen's command line cannot turn cargo features on, so the crate's build script must write the header "+
			"(into OUT_DIR, as Dynamo's does)", c.CrateDir, strings.Join(c.Spec.Features, ","))
	}
	return "", nil, nil
}

func solvedCbindgen(ctx context.Context, c SolvedCheck) (*Library, error) {
	if c.Cbindgen == nil {
		return nil, fmt.Errorf("C API crate %s wrote no header and has none in include/", c.CrateDir)
	}
	fsys, err := c.Cbindgen(ctx)
	if err != nil {
		return nil, fmt.Errorf("cbindgen in the solve: %w", err)
	}
	name := c.Spec.HeaderName
	if name == "" {
		name = strings.TrimPrefix(c.Spec.Crate, "lib") + ".h"
	}
	data, err := fsys.ReadFile(ctx, path.Join("cbindgen", name))
	if err != nil {
		log, _ := fsys.ReadFile(ctx, "cbindgen.log")
		return nil, fmt.Errorf("cbindgen in %s (in the builder image) wrote no %s: %s", c.CrateDir, name, tail(string(log), stderrTailLines))
	}
	return &Library{HeaderName: name, Header: data}, nil
}

func readToolchain(ctx context.Context, fsys SolvedFS, platform string, res *SolvedResult) error {
	read := func(name string, optional bool) (string, error) {
		data, err := fsys.ReadFile(ctx, path.Join("toolchain", name))
		if err != nil {
			if optional {
				return "", nil
			}
			return "", fmt.Errorf("C API for %s: toolchain %s: %w", platform, name, err)
		}
		return strings.TrimSpace(string(data)), nil
	}
	var err error
	if res.Rustc, err = read("rustc", false); err != nil {
		return err
	}
	if res.Cargo, err = read("cargo", false); err != nil {
		return err
	}
	if res.Go, err = read("go", true); err != nil {
		return err
	}
	cc, err := read("cc", false)
	res.CC[platform] = cc
	return err
}
