package capi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/epp-build/epp-build/internal/filetree"
	"github.com/epp-build/epp-build/internal/platform"
)

// Toolchain is the Rust compiler, cargo and per-target C compilers chosen
// for a build, with the version strings that go into cache keys and the
// report.
type Toolchain struct {
	Rustc        string            `json:"rustc"`
	RustcVersion string            `json:"rustcVersion"`
	Cargo        string            `json:"cargo"`
	CargoVersion string            `json:"cargoVersion"`
	CC           map[string]string `json:"cc"`        // rust triple -> compiler path
	CCVersion    map[string]string `json:"ccVersion"` // rust triple -> compiler version
}

// MissingToolchainError says which tool is missing for which platform and
// which Debian packages provide it.
type MissingToolchainError struct {
	Platform string
	What     string
	Packages []string
	Detail   string
}

func (e *MissingToolchainError) Error() string {
	msg := fmt.Sprintf("%s: %s", e.Platform, e.What)
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	if len(e.Packages) > 0 {
		msg += "; install the Debian package(s): apt-get install " + strings.Join(e.Packages, " ")
	}
	return msg
}

// env is a process environment with lookups that honour its own PATH, so
// callers (and tests) can hand a different PATH than this process has.
type env []string

func (e env) get(key string) string {
	for i := len(e) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

func (e env) lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		if isExecutable(name) {
			return name, nil
		}
		return "", fmt.Errorf("%s is not an executable file", name)
	}
	for _, dir := range filepath.SplitList(e.get("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found in PATH", name)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

func output(ctx context.Context, e env, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = e
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// rustcCandidates lists the compilers worth trying, in order: $RUSTC, the
// rustc on PATH, then Debian's. rustup's rustc often shadows Debian's
// rustc-web, and only the latter has the arm64 std from libstd-rust-web-dev.
func rustcCandidates(e env) []string {
	var c []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			c = append(c, p)
		}
	}
	if r := e.get("RUSTC"); r != "" {
		if p, err := e.lookPath(r); err == nil {
			add(p)
		}
		return c // an explicit RUSTC is a decision, not a hint
	}
	if p, err := e.lookPath("rustc"); err == nil {
		add(p)
	}
	if isExecutable("/usr/bin/rustc") {
		add("/usr/bin/rustc")
	}
	return c
}

func hasStd(ctx context.Context, e env, rustc, triple string) (bool, string) {
	sysroot, err := output(ctx, e, rustc, "--print", "sysroot")
	if err != nil {
		return false, err.Error()
	}
	libs, _ := filetree.Glob(filepath.Join(sysroot, "lib", "rustlib", triple, "lib"), "libstd-*.rlib")
	if len(libs) == 0 {
		return false, fmt.Sprintf("%s has no std for %s in %s", rustc, triple, sysroot)
	}
	return true, ""
}

// FindToolchain picks a rustc with the standard library for every target,
// the cargo that goes with it and each target's C compiler. Anything
// missing is a *MissingToolchainError naming the package to install.
func FindToolchain(ctx context.Context, environ []string, targets []platform.Platform) (*Toolchain, error) {
	e := env(environ)
	candidates := rustcCandidates(e)
	if len(candidates) == 0 {
		return nil, &MissingToolchainError{Platform: targets[0].String(), What: "no rustc found (PATH or $RUSTC)",
			Packages: []string{"rustc-web", "cargo-web"}}
	}
	var rustc string
	var notes []string
	var missing *platform.Platform
	for _, c := range candidates {
		ok := true
		for i := range targets {
			if has, why := hasStd(ctx, e, c, targets[i].RustTriple); !has {
				ok = false
				notes = append(notes, why)
				if missing == nil {
					missing = &targets[i]
				}
				break
			}
		}
		if ok {
			rustc = c
			break
		}
	}
	if rustc == "" {
		return nil, &MissingToolchainError{Platform: missing.String(),
			What:     "no Rust standard library for " + missing.RustTriple,
			Detail:   strings.Join(notes, "; "),
			Packages: append([]string{"rustc-web", "cargo-web"}, missing.RustStdPackages...)}
	}
	tc := &Toolchain{Rustc: rustc, CC: map[string]string{}, CCVersion: map[string]string{}}
	var err error
	if tc.RustcVersion, err = output(ctx, e, rustc, "-vV"); err != nil {
		return nil, fmt.Errorf("rustc version: %w", err)
	}
	if tc.Cargo, err = findCargo(e, rustc); err != nil {
		return nil, &MissingToolchainError{Platform: targets[0].String(), What: "no cargo found", Detail: err.Error(),
			Packages: []string{"cargo-web"}}
	}
	if tc.CargoVersion, err = output(ctx, e, tc.Cargo, "-V"); err != nil {
		return nil, fmt.Errorf("cargo version: %w", err)
	}
	for _, t := range targets {
		cc, err := e.lookPath(t.CC)
		if err != nil {
			return nil, &MissingToolchainError{Platform: t.String(), What: "C compiler " + t.CC + " not found",
				Detail: err.Error(), Packages: t.CCPackages}
		}
		v, err := output(ctx, e, cc, "-dumpfullversion")
		if err != nil {
			return nil, fmt.Errorf("%s version: %w", cc, err)
		}
		tc.CC[t.RustTriple] = cc
		tc.CCVersion[t.RustTriple] = v
	}
	return tc, nil
}

// findCargo prefers $CARGO, then the cargo installed next to rustc (same
// release), then the one on PATH.
func findCargo(e env, rustc string) (string, error) {
	if c := e.get("CARGO"); c != "" {
		return e.lookPath(c)
	}
	if sibling := filepath.Join(filepath.Dir(rustc), "cargo"); isExecutable(sibling) {
		return sibling, nil
	}
	p, err := e.lookPath("cargo")
	if err != nil {
		return "", errors.New("cargo is neither next to " + rustc + " nor on PATH")
	}
	return p, nil
}
