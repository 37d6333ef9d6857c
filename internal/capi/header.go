package capi

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// findHeader returns the C header describing the library, from (in order)
// the output of the library package's build script (outDirs, from cargo's
// messages: Dynamo's build.rs runs cbindgen with the crate's cbindgen.toml
// and writes llm_engine.h into OUT_DIR), headers a build script wrote into
// the crate's include/ folder, or the cbindgen CLI run on the crate with
// its own cbindgen.toml. headerName, when set, picks one file among several.
// srcDir is the workspace root cargo runs in ("" = crateDir).
func findHeader(ctx context.Context, e env, tc *Toolchain, srcDir, crateDir, crate string, features, outDirs []string, headerName, scratch string) (string, error) {
	var outHeaders []string
	for _, dir := range outDirs {
		outHeaders = append(outHeaders, globHeaders(dir, func(string) bool { return true })...)
	}
	if h, err := pick(outHeaders, headerName, "the build script's output "+strings.Join(outDirs, ", ")); h != "" || err != nil {
		return h, err
	}
	incHeaders := globHeaders(filepath.Join(crateDir, "include"), func(string) bool { return true })
	if h, err := pick(incHeaders, headerName, filepath.Join(crateDir, "include")); h != "" || err != nil {
		return h, err
	}
	if len(features) > 0 {
		// The cbindgen CLI reads the crate without them and would describe
		// another library than the one cargo built.
		return "", fmt.Errorf("C API crate %s built with features %s wrote no header and has none in include/: "+
			"cbindgen's command line cannot turn cargo features on, so the crate's build script must write the header "+
			"(into OUT_DIR, as Dynamo's does)", crateDir, strings.Join(features, ","))
	}
	return runCbindgen(ctx, e, srcDir, crateDir, crate, headerName, scratch)
}

func globHeaders(root string, keep func(rel string) bool) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".h") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if keep(rel) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func pick(headers []string, name, where string) (string, error) {
	if name != "" {
		for _, h := range headers {
			if filepath.Base(h) == name {
				return h, nil
			}
		}
		return "", nil
	}
	switch len(headers) {
	case 0:
		return "", nil
	case 1:
		return headers[0], nil
	}
	return "", fmt.Errorf("several C headers in %s (%s): say which one is the C API's", where, strings.Join(headers, ", "))
}

// runCbindgen writes the crate's header with the cbindgen CLI into scratch.
// cbindgen reads a temporary copy of the workspace with Rust 2024's unsafe
// attributes rewritten, which cbindgen before 0.27 cannot parse (see
// cbindgenSourceDir); the checkout itself is never written.
func runCbindgen(ctx context.Context, e env, srcDir, crateDir, crate, headerName, scratch string) (string, error) {
	bin, err := e.lookPath("cbindgen")
	if err != nil {
		return "", &MissingToolchainError{Platform: "any", What: "the crate ships no header and cbindgen is not installed",
			Detail: err.Error(), Packages: []string{"cbindgen"}}
	}
	if headerName == "" {
		headerName = strings.TrimPrefix(crate, "lib") + ".h"
	}
	out := filepath.Join(scratch, headerName)
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return "", err
	}
	dir, cleanup, err := cbindgenSourceDir(srcDir, crateDir, scratch)
	if err != nil {
		return "", err
	}
	defer cleanup()
	// The crate's own cbindgen.toml decides the language and style, as
	// its build script would (Dynamo's writes C++); without one, plain C.
	args := []string{"--output", out}
	if _, err := os.Stat(filepath.Join(dir, "cbindgen.toml")); err == nil {
		args = append(args, "--config", filepath.Join(dir, "cbindgen.toml"))
	} else {
		args = append(args, "--lang", "c")
	}
	if crate != "" {
		args = append(args, "--crate", crate)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	// A config with [parse.expand] makes cbindgen run `cargo rustc
	// -Zunpretty=expanded`, a nightly option; RUSTC_BOOTSTRAP lets the
	// stable toolchain answer it, for this one read of the source.
	cmd.Env = append(append([]string(nil), e...), "RUSTC_BOOTSTRAP=1")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cbindgen in %s (read from a copy with Rust 2024's unsafe attributes rewritten): %w\n%s",
			crateDir, err, tail(string(msg), stderrTailLines))
	}
	return out, nil
}
