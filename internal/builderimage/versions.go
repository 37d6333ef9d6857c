package builderimage

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// Toolchains are the versions inside a builder image, read from each
// platform's toolchain stage (the Dockerfile's "versions" stage), not taken
// from what was asked: a base on another Debian release installs another
// Rust, and the labels and the report must say so.
type Toolchains struct {
	Go       string `json:"go"`
	Rustc    string `json:"rustc"`
	Cargo    string `json:"cargo"`
	Cbindgen string `json:"cbindgen"`
	GCC      string `json:"gcc"`
}

// versionsFile is where the versions stage writes them.
const versionsFile = "out/versions"

// parseVersions reads the versions stage's key=value lines; each tool's
// version is its --version output's second word ("rustc 1.85.0 (…)").
func parseVersions(data []byte) (Toolchains, error) {
	seen := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, value, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok {
			continue
		}
		seen[key] = value
	}
	word := func(key string, n int) (string, error) {
		f := strings.Fields(seen[key])
		if len(f) <= n {
			return "", fmt.Errorf("the builder's %s did not say its version (%q)", key, seen[key])
		}
		return f[n], nil
	}
	var t Toolchains
	var err error
	for _, field := range []struct {
		dst *string
		key string
		n   int
	}{{&t.Go, "go", 0}, {&t.Rustc, "rustc", 1}, {&t.Cargo, "cargo", 1}, {&t.Cbindgen, "cbindgen", 1}, {&t.GCC, "gcc", 0}} {
		if *field.dst, err = word(field.key, field.n); err != nil {
			return Toolchains{}, err
		}
	}
	return t, nil
}

// sameToolchains is the one set of versions of every platform; a base whose
// variants carry different packages gives no single answer for a label.
func sameToolchains(per map[string]Toolchains) (Toolchains, error) {
	platforms := make([]string, 0, len(per))
	for p := range per {
		platforms = append(platforms, p)
	}
	sort.Strings(platforms)
	first := per[platforms[0]]
	for _, p := range platforms[1:] {
		if per[p] != first {
			return Toolchains{}, fmt.Errorf("the base's platforms install different toolchains: %s has %+v, %s has %+v (use a base whose variants are the same release)",
				platforms[0], first, p, per[p])
		}
	}
	return first, nil
}

// buildArgs are the final stage's labels, as build args.
func (t Toolchains) buildArgs() map[string]string {
	return map[string]string{"VERSION_GO": t.Go, "VERSION_RUSTC": t.Rustc, "VERSION_CARGO": t.Cargo,
		"VERSION_CBINDGEN": t.Cbindgen, "VERSION_GCC": t.GCC}
}

// Label names of the versions, as the Dockerfile sets them.
const (
	LabelGo       = "dev.epp-build.builder.go"
	LabelRustc    = "dev.epp-build.builder.rustc"
	LabelCargo    = "dev.epp-build.builder.cargo"
	LabelCbindgen = "dev.epp-build.builder.cbindgen"
	LabelGCC      = "dev.epp-build.builder.gcc"
)
