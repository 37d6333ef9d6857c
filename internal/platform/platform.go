// Package platform is the one table of the platforms this tool builds
// for, and the one parser of --platform: every later stage (C API, compile,
// nodes, image, report) takes the parsed values, so no stage re-parses or
// re-derives a toolchain's name for an architecture.
package platform

import (
	"fmt"
	"runtime"
	"strings"
)

// Platform is one platform the image is built for, with the names each
// toolchain uses for it (Go, Rust, Debian and ELF disagree on arch names).
type Platform struct {
	GOOS       string // linux
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
	// ELFMachine is the e_machine of this platform's executables: a binary
	// of the wrong arch still runs under qemu binfmt, its header does not lie.
	ELFMachine uint16
}

// String is the OCI platform, e.g. linux/arm64: what BuildKit, registries
// and the report name it by.
func (p Platform) String() string { return p.GOOS + "/" + p.GOARCH }

// Supported are the OCI platforms Lookup knows, in the default order.
var Supported = []string{"linux/amd64", "linux/arm64"}

// UnsupportedError is returned for a platform string this tool does not
// build for.
type UnsupportedError struct{ Platform string }

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("platform %q is not supported: use linux/amd64 and/or linux/arm64 (comma separated)", e.Platform)
}

// Lookup maps one OCI platform string to its Platform, choosing the C
// compiler for the machine this runs on (native gcc or a cross gcc).
func Lookup(s string) (Platform, error) {
	return lookup(s, runtime.GOARCH)
}

// LookupFrom is Lookup as seen from a machine of architecture buildArch:
// what a builder image for that architecture installs to target s.
func LookupFrom(s, buildArch string) (Platform, error) {
	return lookup(s, buildArch)
}

func lookup(s, hostArch string) (Platform, error) {
	var p Platform
	switch strings.TrimSpace(s) {
	case "linux/amd64":
		p = Platform{GOOS: "linux", GOARCH: "amd64", RustTriple: "x86_64-unknown-linux-gnu",
			CC: "x86_64-linux-gnu-gcc", CCPackages: []string{"gcc-x86-64-linux-gnu", "libc6-dev-amd64-cross"},
			RustStdPackages: []string{"libstd-rust-web-dev:amd64"}, ELFMachine: 62}
	case "linux/arm64", "linux/arm64/v8":
		p = Platform{GOOS: "linux", GOARCH: "arm64", RustTriple: "aarch64-unknown-linux-gnu",
			CC: "aarch64-linux-gnu-gcc", CCPackages: []string{"gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross"},
			RustStdPackages: []string{"libstd-rust-web-dev:arm64"}, ELFMachine: 183}
	default:
		return Platform{}, &UnsupportedError{Platform: s}
	}
	if p.GOARCH == hostArch {
		// The native compiler avoids needing a cross package for the host arch.
		p.CC = "gcc"
		p.CCPackages = []string{"gcc", "libc6-dev"}
	}
	return p, nil
}

// ELFMachine is the e_machine of an architecture's executables, false for
// an architecture outside the table.
func ELFMachine(goarch string) (uint16, bool) {
	for _, s := range Supported {
		if p, _ := Lookup(s); p.GOARCH == goarch {
			return p.ELFMachine, true
		}
	}
	return 0, false
}
