// Package capi builds the Dynamo Rust C API (a staticlib crate) once per
// target platform, caches the result by its inputs and stages the library
// and header where the EPP's cgo binding expects them.
package capi

import (
	"fmt"
	"runtime"
	"strings"
)

// Target is one platform the image is built for, with the names each
// toolchain uses for it (Go, Rust and Debian disagree on arch names).
type Target struct {
	Platform   string // OCI platform, e.g. linux/arm64
	GOARCH     string // amd64, arm64
	RustTriple string // x86_64-unknown-linux-gnu
	// CC is the C compiler that targets this platform: cgo uses it and
	// cargo uses it as the linker.
	CC string
	// CCPackages are the Debian packages that provide CC.
	CCPackages []string
	// RustStdPackages are the Debian packages that provide Rust's standard
	// library for RustTriple.
	RustStdPackages []string
}

// UnsupportedPlatformError is returned for a platform string this tool does
// not build for.
type UnsupportedPlatformError struct{ Platform string }

func (e *UnsupportedPlatformError) Error() string {
	return fmt.Sprintf("platform %q is not supported: use linux/amd64 and/or linux/arm64 (comma separated)", e.Platform)
}

// SupportedPlatforms are the OCI platforms TargetFor knows.
var SupportedPlatforms = []string{"linux/amd64", "linux/arm64"}

// TargetFor maps an OCI platform string to its Target, choosing the C
// compiler for the machine this runs on (native gcc or a cross gcc).
func TargetFor(platform string) (Target, error) {
	return targetFor(platform, runtime.GOARCH)
}

func targetFor(platform, hostArch string) (Target, error) {
	p := strings.TrimSpace(platform)
	var t Target
	switch p {
	case "linux/amd64":
		t = Target{Platform: p, GOARCH: "amd64", RustTriple: "x86_64-unknown-linux-gnu",
			CC: "x86_64-linux-gnu-gcc", CCPackages: []string{"gcc-x86-64-linux-gnu", "libc6-dev-amd64-cross"},
			RustStdPackages: []string{"libstd-rust-web-dev:amd64"}}
	case "linux/arm64", "linux/arm64/v8":
		t = Target{Platform: "linux/arm64", GOARCH: "arm64", RustTriple: "aarch64-unknown-linux-gnu",
			CC: "aarch64-linux-gnu-gcc", CCPackages: []string{"gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross"},
			RustStdPackages: []string{"libstd-rust-web-dev:arm64"}}
	default:
		return Target{}, &UnsupportedPlatformError{Platform: platform}
	}
	if t.GOARCH == hostArch {
		// The native compiler avoids needing a cross package for the host arch.
		t.CC = "gcc"
		t.CCPackages = []string{"gcc", "libc6-dev"}
	}
	return t, nil
}

// ParsePlatforms parses platform strings (each may hold a comma separated
// list), rejecting unsupported ones and dropping duplicates. Order is kept.
func ParsePlatforms(specs []string) ([]Target, error) {
	var out []Target
	seen := map[string]bool{}
	for _, spec := range specs {
		for _, p := range strings.Split(spec, ",") {
			if strings.TrimSpace(p) == "" {
				continue
			}
			t, err := TargetFor(p)
			if err != nil {
				return nil, err
			}
			if !seen[t.Platform] {
				seen[t.Platform] = true
				out = append(out, t)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no platform given: pass linux/amd64 and/or linux/arm64")
	}
	return out, nil
}
