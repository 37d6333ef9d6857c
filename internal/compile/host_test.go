//go:build integration

package compile

import (
	"context"
	"debug/buildinfo"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/platform"
	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil"
)

func writeModule(t *testing.T, main string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.26\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "cmd", "epp"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cmd", "epp", "main.go"), []byte(main), 0o644))
	return dir
}

const helloMain = `package main

/*
int answer(void) { return 42; }
*/
import "C"

import "fmt"

func main() { fmt.Println("answer", C.answer()) }
`

func hostTargets(t *testing.T) []HostTarget {
	t.Helper()
	testenv.Tool(t, "gcc", "links the cgo binary for amd64")
	testenv.Tool(t, "aarch64-linux-gnu-gcc", "cross-links the cgo binary for arm64 (gcc-aarch64-linux-gnu)")
	lib := t.TempDir()
	return []HostTarget{
		{Platform: platform.Platform{GOOS: "linux", GOARCH: "amd64"}, CC: "gcc", LibDir: lib},
		{Platform: platform.Platform{GOOS: "linux", GOARCH: "arm64"}, CC: "aarch64-linux-gnu-gcc", LibDir: lib},
	}
}

func TestHostBuildsStaticBinariesPerArchAndCachesThem(t *testing.T) {
	ts := hostTargets(t)
	mod := writeModule(t, helloMain)
	opt := HostOptions{ModuleDir: mod, Package: "./cmd/epp", OutDir: t.TempDir(), Binary: "epp", Targets: ts, CacheDir: t.TempDir()}

	bins, err := Host(context.Background(), opt)
	require.NoError(t, err)
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	for _, b := range bins {
		assert.False(t, b.Cached)
		f, err := elf.Open(b.Path)
		require.NoError(t, err)
		assert.Equal(t, want[b.Platform.GOARCH], f.Machine, b.Platform)
		interp := f.Section(".interp")
		f.Close()
		assert.Nil(t, interp, "%s: statically linked, no dynamic loader", b.Platform)
	}
	out, err := exec.Command(bins[0].Path).Output()
	require.NoError(t, err)
	assert.Equal(t, "answer 42\n", string(out))

	again, err := Host(context.Background(), opt)
	require.NoError(t, err)
	for _, b := range again {
		assert.True(t, b.Cached, "%s: unchanged inputs reuse the linked binary", b.Platform)
	}

	require.NoError(t, os.WriteFile(filepath.Join(mod, "cmd", "epp", "extra.go"), []byte("package main\n\nvar _ = 1\n"), 0o644))
	changed, err := Host(context.Background(), opt)
	require.NoError(t, err)
	assert.False(t, changed[0].Cached, "a source change rebuilds")
}

func TestHostBuildFailureShowsCompilerOutput(t *testing.T) {
	ts := hostTargets(t)
	mod := writeModule(t, "package main\n\nfunc main() { undefinedForTest() }\n")
	_, err := Host(context.Background(), HostOptions{ModuleDir: mod, Package: "./cmd/epp", OutDir: t.TempDir(), Binary: "epp", Targets: ts[:1]})
	var ge *GoBuildError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, "linux/amd64", ge.Platform)
	assert.Contains(t, err.Error(), "undefinedForTest")
}

// The optional C API features the library has arrive as build tags: the
// tagged file is compiled, and a different tag set is a different binary.
func TestHostPassesFeatureTags(t *testing.T) {
	ts := hostTargets(t)[:1]
	mod := writeModule(t, "package main\n\nimport \"fmt\"\n\nvar feature = \"off\"\n\nfunc main() { fmt.Println(feature) }\n")
	require.NoError(t, os.WriteFile(filepath.Join(mod, "cmd", "epp", "on.go"),
		[]byte("//go:build dynamo_prefill_reservation\n\npackage main\n\nfunc init() { feature = \"on\" }\n"), 0o644))
	cache := t.TempDir()
	run := func(tags ...string) (string, bool) {
		bins, err := Host(context.Background(), HostOptions{ModuleDir: mod, Package: "./cmd/epp", OutDir: t.TempDir(),
			Binary: "epp", Targets: ts, CacheDir: cache, Tags: tags})
		require.NoError(t, err)
		out, err := exec.Command(bins[0].Path).Output()
		require.NoError(t, err)
		return string(out), bins[0].Cached
	}
	out, _ := run()
	assert.Equal(t, "off\n", out)
	out, cached := run("dynamo_prefill_reservation")
	assert.Equal(t, "on\n", out)
	assert.False(t, cached, "the tags are part of the cache key")
}

// A tree from the module proxy has no nested modules, yet its go.work may
// still list them (GAIE's lists ./conformance): the build is the root
// module's, not the workspace's.
func TestHostBuildIgnoresAWorkspaceListingMissingModules(t *testing.T) {
	ts := hostTargets(t)[:1]
	mod := writeModule(t, helloMain)
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.work"), []byte("go 1.26\n\nuse (\n\t.\n\t./conformance\n)\n"), 0o644))
	bins, err := Host(context.Background(), HostOptions{ModuleDir: mod, Package: "./cmd/epp", OutDir: t.TempDir(), Binary: "epp", Targets: ts})
	require.NoError(t, err)
	out, err := exec.Command(bins[0].Path).Output()
	require.NoError(t, err)
	assert.Equal(t, "answer 42\n", string(out))
}

// A recipe's toolchain is the Go that builds the binary: its build info
// says so, and the cache keeps the two Go's binaries apart.
func TestHostBuildsWithTheRecipeToolchain(t *testing.T) {
	ts := hostTargets(t)[:1]
	toolchain := testutil.OtherGoRelease(t)
	mod := writeModule(t, helloMain)
	cache := t.TempDir()
	build := func(toolchain string) Binary {
		bins, err := Host(context.Background(), HostOptions{ModuleDir: mod, Package: "./cmd/epp", OutDir: t.TempDir(),
			Binary: "epp", Targets: ts, CacheDir: cache, Toolchain: toolchain})
		require.NoError(t, err)
		return bins[0]
	}

	b := build(toolchain)
	info, err := buildinfo.ReadFile(b.Path)
	require.NoError(t, err)
	assert.Equal(t, toolchain, info.GoVersion)
	assert.Equal(t, toolchain, b.GoVersion)

	own := build("")
	assert.False(t, own.Cached, "another Go is another binary")
	assert.NotEqual(t, toolchain, own.GoVersion)

	again := build(toolchain)
	assert.True(t, again.Cached)
	assert.Equal(t, toolchain, again.GoVersion)
}
