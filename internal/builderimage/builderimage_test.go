package builderimage

import (
	"errors"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolveRefusesWhatCannotBeBuilt(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  Options
		flag string
		msg  string
	}{
		{"nothing exported", Options{Image: "r.example/b"}, "--push", "nothing to export"},
		{"push without image", Options{Push: true}, "--image", "--push needs the repository"},
		{"digest", Options{Push: true, Image: "r.example/b@sha256:" + strings.Repeat("a", 64)}, "--image", "names a digest"},
		{"bad base", Options{Push: true, Image: "r.example/b", Base: "Debian:Bookworm!"}, "--base", "not an image reference"},
		{"platform", Options{Push: true, Image: "r.example/b", Platforms: []string{"linux/riscv64"}}, "--platform", "not supported"},
		{"go", Options{Push: true, Image: "r.example/b", GoVersion: "1.26"}, "--go", "not a Go release"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(tc.opt)
			var oe *OptionsError
			require.True(t, errors.As(err, &oe), "%v", err)
			assert.Equal(t, tc.flag, oe.Flag)
			assert.Contains(t, oe.Msg, tc.msg)
		})
	}
}

func TestResolveDefaults(t *testing.T) {
	p, err := Resolve(Options{Push: true, Image: "r.example/epp-build/builder:bookworm", GoVersion: "1.26.8"})
	require.NoError(t, err)
	assert.Equal(t, "index.docker.io/library/debian:bookworm", p.Base.Name())
	assert.Equal(t, "go1.26.8", p.GoVersion)
	assert.Equal(t, "r.example/epp-build/builder:bookworm", p.Target.Tag)
	require.Len(t, p.Platforms, 2)

	p, err = Resolve(Options{Push: true, Image: "r.example/epp-build/builder"})
	require.NoError(t, err)
	assert.Empty(t, p.Target.Tag, "no tag written, none applied")
	assert.Equal(t, runtime.Version(), p.GoVersion)
}

// Each builder variant installs, from the platform table, the compiler and
// Rust standard library of every target: natively for its own arch, cross
// for the other, from the other arch's Debian packages.
func TestPackagesComeFromThePlatformTable(t *testing.T) {
	amd, foreign, err := packagesFor("amd64")
	require.NoError(t, err)
	assert.Subset(t, amd, []string{"gcc", "libc6-dev", "gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross",
		"libstd-rust-web-dev:amd64", "libstd-rust-web-dev:arm64", "rustc-web", "cargo-web", "cbindgen"})
	assert.Equal(t, []string{"arm64"}, foreign)

	arm, foreign, err := packagesFor("arm64")
	require.NoError(t, err)
	assert.Subset(t, arm, []string{"gcc", "gcc-x86-64-linux-gnu", "libc6-dev-amd64-cross", "libstd-rust-web-dev:amd64"})
	assert.NotContains(t, arm, "gcc-aarch64-linux-gnu")
	assert.Equal(t, []string{"amd64"}, foreign)
}

// Every build arg the tool sets is one the Dockerfile declares: a renamed
// ARG would otherwise be silently empty inside the build.
func TestTheDockerfileDeclaresEveryBuildArg(t *testing.T) {
	p, err := Resolve(Options{Push: true, Image: "r.example/b", GoVersion: "1.26.8"})
	require.NoError(t, err)
	args, err := buildArgs(p)
	require.NoError(t, err)
	for k := range (Toolchains{}).buildArgs() {
		args[k] = ""
	}
	declared := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^ARG ([A-Za-z_0-9]+)`).FindAllStringSubmatch(string(Dockerfile()), -1) {
		declared[m[1]] = true
	}
	for k := range args {
		assert.True(t, declared[k], "the Dockerfile does not declare ARG %s", k)
	}
	assert.Equal(t, "1.26.8", args["GO_VERSION"])
}

func TestVersionsAreReadFromInsideTheImage(t *testing.T) {
	got, err := parseVersions([]byte("go=go1.26.8\nrustc=rustc 1.96.0 (abc 2026-01-01) (built from a source tarball)\n" +
		"cargo=cargo 1.96.0 (def 2026-01-01)\ncbindgen=cbindgen 0.24.3\ngcc=12\n"))
	require.NoError(t, err)
	assert.Equal(t, Toolchains{Go: "go1.26.8", Rustc: "1.96.0", Cargo: "1.96.0", Cbindgen: "0.24.3", GCC: "12"}, got)

	_, err = parseVersions([]byte("go=go1.26.8\nrustc=\n"))
	assert.ErrorContains(t, err, "rustc did not say its version")

	_, err = sameToolchains(map[string]Toolchains{"linux/amd64": got, "linux/arm64": {Go: "go1.26.8", Rustc: "1.85.0"}})
	assert.ErrorContains(t, err, "install different toolchains")
}
