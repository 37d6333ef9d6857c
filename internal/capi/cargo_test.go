//go:build integration

package capi

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/cheader"
	"github.com/epp-build/epp-build/internal/testenv"
)

// Builds of the C API with cargo, cbindgen and the cross toolchains
// (integration tier); the checks that need none of them stay untagged.

func TestBuildCachesByInputs(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	src, cache := crateCopy(t), t.TempDir()
	opt := Options{SrcDir: src, Crate: testCrate, Library: testLibrary, Platforms: ts, CacheDir: cache, Env: offlineEnv()}

	first, err := Build(context.Background(), opt)
	require.NoError(t, err)
	a := first.Artifacts[0]
	assert.False(t, a.CacheHit)
	lib, err := os.ReadFile(a.Library)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(lib, []byte("!<arch>\n")), "a static library (ar archive)")
	assert.Contains(t, string(lib), "dynamo_capi_generation")
	hdr, err := os.ReadFile(a.Header)
	require.NoError(t, err)
	assert.Contains(t, string(hdr), "dynamo_llm_init(")

	second, err := Build(context.Background(), opt)
	require.NoError(t, err)
	assert.True(t, second.Artifacts[0].CacheHit, "unchanged inputs reuse the cached library")
	assert.Equal(t, a.Key, second.Artifacts[0].Key)

	// Any source change is a new key and a real build.
	f := filepath.Join(src, "src", "lib.rs")
	data, err := os.ReadFile(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(f, append(data, []byte("\n// changed\n")...), 0o644))
	third, err := Build(context.Background(), opt)
	require.NoError(t, err)
	assert.False(t, third.Artifacts[0].CacheHit)
	assert.NotEqual(t, a.Key, third.Artifacts[0].Key)
}

func TestBuildBothArchesGivesEachArchItsOwnCode(t *testing.T) {
	ts := targets(t, "linux/amd64", "linux/arm64")
	requireToolchain(t, ts)
	res, err := Build(context.Background(), Options{SrcDir: crateCopy(t), Crate: testCrate, Library: testLibrary,
		Platforms: ts, CacheDir: t.TempDir(), Env: offlineEnv()})
	require.NoError(t, err)
	require.Len(t, res.Artifacts, 2)
	want := map[string]elf.Machine{"linux/amd64": elf.EM_X86_64, "linux/arm64": elf.EM_AARCH64}
	for _, a := range res.Artifacts {
		assert.Equal(t, want[a.Platform.String()], firstObjectMachine(t, a.Library), a.Platform.String())
	}
}

// firstObjectMachine reads the ELF machine of the first object in an ar
// archive (a Rust staticlib).
func firstObjectMachine(t *testing.T, path string) elf.Machine {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(data, []byte("!<arch>\n")))
	off := 8
	for off+60 <= len(data) {
		hdr := data[off : off+60]
		size, err := strconv.Atoi(strings.TrimSpace(string(hdr[48:58])))
		require.NoError(t, err)
		body := data[off+60 : off+60+size]
		if bytes.HasPrefix(body, []byte("\x7fELF")) {
			f, err := elf.NewFile(bytes.NewReader(body))
			require.NoError(t, err)
			return f.Machine
		}
		off += 60 + size + size%2
	}
	t.Fatalf("no ELF object in %s", path)
	return 0
}

func TestCargoFailureShowsStderrTail(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	src := crateCopy(t)
	require.NoError(t, os.WriteFile(filepath.Join(src, "src", "lib.rs"),
		[]byte("pub extern \"C\" fn broken() -> u32 { undefined_name_for_test }\n"), 0o644))
	_, err := Build(context.Background(), Options{SrcDir: src, Crate: testCrate, Library: testLibrary,
		Platforms: ts, CacheDir: t.TempDir(), Env: offlineEnv()})
	var ce *CargoError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "linux/amd64", ce.Platform)
	assert.Contains(t, err.Error(), "undefined_name_for_test", "cargo's own diagnostic is shown")
	assert.Contains(t, err.Error(), "--target x86_64-unknown-linux-gnu")
}

func TestMissingCrossCompilerNamesThePackage(t *testing.T) {
	ts := targets(t, "linux/amd64", "linux/arm64")
	requireToolchain(t, ts)
	tc, err := FindToolchain(context.Background(), os.Environ(), ts)
	require.NoError(t, err)
	// A PATH with rustc and cargo but no aarch64 C compiler.
	bin := t.TempDir()
	require.NoError(t, os.Symlink(tc.Rustc, filepath.Join(bin, "rustc")))
	require.NoError(t, os.Symlink(tc.Cargo, filepath.Join(bin, "cargo")))
	gcc, err := exec.LookPath("gcc")
	require.NoError(t, err)
	require.NoError(t, os.Symlink(gcc, filepath.Join(bin, "gcc")))
	environ := append(os.Environ(), "PATH="+bin, "RUSTC="+tc.Rustc)

	_, err = Build(context.Background(), Options{SrcDir: crateCopy(t), Crate: testCrate, Library: testLibrary,
		Platforms: ts, CacheDir: t.TempDir(), Env: environ})
	var me *MissingToolchainError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "linux/arm64", me.Platform)
	assert.Contains(t, err.Error(), "aarch64-linux-gnu-gcc")
	assert.Contains(t, err.Error(), "gcc-aarch64-linux-gnu")
}

func TestCancelStopsCargo(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelOnWrite{match: "cargo build", cancel: cancel}
	_, err := Build(ctx, Options{SrcDir: crateCopy(t), Crate: testCrate, Library: testLibrary,
		Platforms: ts, CacheDir: t.TempDir(), Env: offlineEnv(), Log: w})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
}

type cancelOnWrite struct {
	match  string
	cancel func()
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.match) {
		c.cancel()
	}
	return len(p), nil
}

func TestTestDoubleMatchesTheRealPipelineBinding(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	src := filepath.Join(t.TempDir(), "capi-double")
	require.NoError(t, os.CopyFS(src, os.DirFS(filepath.Join("..", "..", "testdata", "capi-double"))))
	res, err := Build(context.Background(), Options{SrcDir: src, Crate: testCrate, Library: testLibrary,
		Platforms: ts, CacheDir: t.TempDir(), Env: offlineEnv()})
	require.NoError(t, err)
	assert.Equal(t, "dynamo_llm_capi.h", filepath.Base(res.Artifacts[0].Header), "the header the build script wrote is used")

	// The binding folder as it appears in a patched tree.
	binding := filepath.Join(t.TempDir(), "pkg", "dynamo")
	hdr, err := os.ReadFile(filepath.Join("..", "..", "ffi", "pipeline", "dynamo_llm_pipeline.h"))
	require.NoError(t, err)
	write(t, filepath.Join(binding, "dynamo_llm_pipeline.h"), string(hdr))
	_, err = Stage(res, binding, "dynamo_llm_pipeline.h", testLibrary)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(binding, "lib", "amd64", "libdynamo_llm_capi.a"))
}

// A crate feature reaches cargo and picks the header the crate's build
// script writes for it: the double built with pipeline08 satisfies the v0.8
// binding and no longer the v0.7 one, and the two builds are cached apart.
func TestCargoFeaturesSelectTheLibraryAndItsHeader(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	src := filepath.Join(t.TempDir(), "capi-double")
	require.NoError(t, os.CopyFS(src, os.DirFS(filepath.Join("..", "..", "testdata", "capi-double"))))
	cache := t.TempDir()
	build := func(features ...string) *Result {
		res, err := Build(context.Background(), Options{SrcDir: src, Crate: testCrate, Library: testLibrary,
			Features: features, Platforms: ts, CacheDir: cache, Env: offlineEnv()})
		require.NoError(t, err)
		return res
	}
	stage := func(res *Result, pkg string) error {
		binding := filepath.Join(t.TempDir(), "pkg", "dynamo")
		hdr, err := os.ReadFile(filepath.Join("..", "..", "ffi", pkg, "dynamo_llm_pipeline.h"))
		require.NoError(t, err)
		write(t, filepath.Join(binding, "dynamo_llm_pipeline.h"), string(hdr))
		_, err = Stage(res, binding, "dynamo_llm_pipeline.h", testLibrary)
		return err
	}

	v08 := build("pipeline08")
	require.NoError(t, stage(v08, "pipeline08"))
	var mismatch *cheader.MismatchError
	require.ErrorAs(t, stage(v08, "pipeline"), &mismatch, "the v0.7 binding against the v0.8 library")

	v07 := build()
	assert.False(t, v07.Artifacts[0].CacheHit, "a build without the feature is another cache entry")
	assert.NotEqual(t, v08.Artifacts[0].Key, v07.Artifacts[0].Key)
	require.NoError(t, stage(v07, "pipeline"))
	require.ErrorAs(t, stage(v07, "pipeline08"), &mismatch, "the v0.8 binding against the v0.7 library")

	assert.True(t, build("pipeline08").Artifacts[0].CacheHit)
}

// Two checkouts of the crate (two pins, or two --capi-src folders) share
// the cache's cargo target dir, so it holds one build-script output per
// checkout: each build takes the header of its own.
func TestEachCheckoutGetsItsOwnBuildScriptHeader(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	cache := t.TempDir()
	build := func(marker string) string {
		src := filepath.Join(t.TempDir(), "capi-double")
		require.NoError(t, os.CopyFS(src, os.DirFS(filepath.Join("..", "..", "testdata", "capi-double"))))
		hdr := filepath.Join(src, "include", "dynamo_llm_capi.h")
		data, err := os.ReadFile(hdr)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(hdr, append(data, []byte("/* "+marker+" */\n")...), 0o644))
		res, err := Build(context.Background(), Options{SrcDir: src, Crate: testCrate, Library: testLibrary,
			Platforms: ts, CacheDir: cache, Env: offlineEnv()})
		require.NoError(t, err)
		got, err := os.ReadFile(res.Artifacts[0].Header)
		require.NoError(t, err)
		return string(got)
	}
	assert.Contains(t, build("checkout one"), "checkout one")
	assert.Contains(t, build("checkout two"), "checkout two")
}

// The fallback on source like recent Dynamo's: an edition 2024 workspace
// whose C API crate exports with #[unsafe(no_mangle)] and
// #[unsafe(export_name = ...)], which cbindgen before 0.27 cannot parse.
// The header comes out with the crate's config and the prototypes the
// v0.8 binding declares, and the checkout is not written.
func TestCbindgenFallbackReadsRust2024UnsafeAttributes(t *testing.T) {
	bin := testenv.Tool(t, "cbindgen", "the fallback runs the cbindgen CLI")
	src := filepath.Join(t.TempDir(), "dynamo")
	require.NoError(t, os.CopyFS(src, os.DirFS(rust2024Fixture)))
	crateDir := filepath.Join(src, "lib", "bindings", "c")
	before := snapshotTree(t, src)

	// The cbindgen at hand on the source as it is: older ones fail.
	version, err := exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	if v := strings.TrimSpace(strings.TrimPrefix(string(version), "cbindgen ")); strings.HasPrefix(v, "0.2") && v < "0.27" {
		plain := filepath.Join(t.TempDir(), "plain")
		require.NoError(t, os.CopyFS(plain, os.DirFS(rust2024Fixture)))
		cmd := exec.Command(bin, "--config", "cbindgen.toml", "--crate", "libdynamo_llm", "--output", filepath.Join(plain, "x.h"))
		cmd.Dir = filepath.Join(plain, "lib", "bindings", "c")
		out, err := cmd.CombinedOutput()
		require.Error(t, err, "cbindgen %s parsed #[unsafe(no_mangle)]: %s", v, out)
	}

	scratch := t.TempDir()
	h, err := findHeader(context.Background(), env(os.Environ()), nil, src, crateDir, "libdynamo_llm", nil, nil, "", scratch)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(scratch, "dynamo_llm.h"), h)
	hdr, err := os.ReadFile(h)
	require.NoError(t, err)
	text := string(hdr)
	assert.Contains(t, text, "__FIXTURE_DYNAMO_LLM_API__", "the crate's cbindgen.toml was used")
	assert.Contains(t, text, "dynamo_llm_shutdown()")
	assert.Contains(t, text, "dynamo_router_free_request(", "exported under its export_name")
	assert.NotRegexp(t, `(?m)^dynamo_llm_result_t router_free_request\(`, text, "not under its Rust name")

	// Every prototype the v0.8 binding calls, type by type.
	binding, err := os.ReadFile(filepath.Join("..", "..", "ffi", "pipeline08", "dynamo_llm_pipeline.h"))
	require.NoError(t, err)
	require.NoError(t, CheckPrototypes(binding, hdr))

	assert.Equal(t, before, snapshotTree(t, src), "the checkout was written (a Cargo.lock from cargo metadata?)")
	assert.NoDirExists(t, filepath.Join(scratch, "cbindgen-src"), "the copy is removed")
}

// The builder image's cbindgen step (insolve.sh cbindgen) on the same
// source: the header is written from a rewritten copy, the source is not
// touched.
func TestInSolveCbindgenReadsRust2024UnsafeAttributes(t *testing.T) {
	testenv.Tool(t, "cbindgen", "the in-solve step runs the cbindgen CLI")
	src := filepath.Join(t.TempDir(), "src")
	require.NoError(t, os.CopyFS(src, os.DirFS(rust2024Fixture)))
	before := snapshotTree(t, src)
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command("sh", "insolve.sh", "cbindgen")
	cmd.Env = append(os.Environ(), "CAPI_SRC="+src, "CAPI_OUT="+out, "CAPI_CRATE=libdynamo_llm",
		"CAPI_CRATE_DIR=lib/bindings/c", "CAPI_HEADER_NAME=api.h")
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	hdr, err := os.ReadFile(filepath.Join(out, "cbindgen", "api.h"))
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(out, "cbindgen.log"))
		t.Fatalf("no header: %v\n%s", err, log)
	}
	binding, err := os.ReadFile(filepath.Join("..", "..", "ffi", "pipeline08", "dynamo_llm_pipeline.h"))
	require.NoError(t, err)
	require.NoError(t, CheckPrototypes(binding, hdr))
	assert.Equal(t, before, snapshotTree(t, src), "the source was written")
}

// Each variant fragment of the routers binding passes the prototype check
// against the double built as that variant and is refused by the double
// built as every other (or, where that library declares it too, loses to
// the library's own variant); the build enables exactly the library's
// variant on every axis.
func TestEachRoutersVariantMatchesOnlyItsDouble(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	src := filepath.Join(t.TempDir(), "capi-double")
	require.NoError(t, os.CopyFS(src, os.DirFS(filepath.Join("..", "..", "testdata", "capi-double"))))
	cache := t.TempDir()
	binding := routersVariantDir(t)
	base, err := os.ReadFile(filepath.Join(binding, "dynamo_llm_routers.h"))
	require.NoError(t, err)
	axes, err := readVariants(binding, base)
	require.NoError(t, err)
	require.Len(t, axes, 3)

	seen := map[[3]string]bool{}
	for _, dv := range doubleVariants {
		t.Run(dv.name, func(t *testing.T) {
			res, err := Build(context.Background(), Options{SrcDir: src, Crate: testCrate, Library: testLibrary,
				Features: dv.features, Platforms: ts, CacheDir: cache, Env: offlineEnv()})
			require.NoError(t, err)
			features, err := Stage(res, routersVariantDir(t), "dynamo_llm_routers.h", testLibrary)
			require.NoError(t, err)
			got := map[string]string{}
			for _, f := range features {
				if f.Enabled {
					require.Empty(t, got[f.Axis], "one variant per axis")
					got[f.Axis] = f.Variant
				}
			}
			assert.Equal(t, dv.want, got)

			lib, err := os.ReadFile(res.Artifacts[0].Header)
			require.NoError(t, err)
			library, err := cheader.ParseHeader(lib)
			require.NoError(t, err)
			for axis, variants := range axes {
				for _, v := range variants {
					err := cheader.Check(v.decls, library)
					if v.value == dv.want[axis] {
						assert.NoError(t, err, "%s against its own double", v.file)
						continue
					}
					key := [3]string{axis, v.value, dv.want[axis]}
					want, known := firstDifference[key]
					require.True(t, known, "no expectation for %v", key)
					seen[key] = true
					if want == "" {
						assert.NoError(t, err, "%s: the library declares it too", v.file)
						continue
					}
					require.Error(t, err, "%s against the %s double", v.file, dv.name)
					assert.Equal(t, want, firstProblem(err), "%s against the %s double", v.file, dv.name)
				}
			}
		})
	}
	var unseen [][3]string
	for k := range firstDifference {
		if !seen[k] {
			unseen = append(unseen, k)
		}
	}
	sort.Slice(unseen, func(i, j int) bool {
		return unseen[i][0]+unseen[i][1]+unseen[i][2] < unseen[j][0]+unseen[j][1]+unseen[j][2]
	})
	assert.Empty(t, unseen, "expectations no double exercised")
}

func buildCheckout(t *testing.T, c *Checkout) (*Result, []Feature, string) {
	t.Helper()
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	testenv.Tool(t, "cbindgen", "the fixture's header comes from cbindgen and the crate's cbindgen.toml")
	var log bytes.Buffer
	res, err := Build(context.Background(), Options{SrcDir: c.Root, CrateDir: c.CrateDir, Crate: testCrate, Library: testLibrary,
		Platforms: ts, CacheDir: t.TempDir(), Env: offlineEnv(), Log: &log})
	require.NoError(t, err)
	features, err := Stage(res, routersVariantDir(t), "dynamo_llm_routers.h", testLibrary)
	require.NoError(t, err)
	return res, features, log.String()
}

// The release pin: the workspace is built from its root, the header comes
// from the crate's own cbindgen.toml (C++, as Dynamo's), the routers
// binding matches it, and the variants are the 1.4 line's: the 9-field
// result, add_request_with_cache_namespace, and no reservations (the
// release's library has none of their functions).
func TestPinnedWorkspaceBuildsLikeDynamosOwnBuild(t *testing.T) {
	pin := servedWorkspace(t)
	c, err := FetchPin(context.Background(), pin, t.TempDir(), nil)
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, filepath.FromSlash(workspaceCrate), c.CrateDir)
	assert.Equal(t, pin.Commit, c.Commit)

	res, features, log := buildCheckout(t, c)
	assert.Contains(t, log, "cargo build --release -p libdynamo_llm --target x86_64-unknown-linux-gnu")
	hdr, err := os.ReadFile(res.Artifacts[0].Header)
	require.NoError(t, err)
	assert.Contains(t, string(hdr), "using RouterHandlesPtr = RouterHandles*;", "cbindgen wrote C++ from the crate's config")
	assert.Contains(t, string(hdr), "__NVIDIA_DYNAMO_LLM_API__")

	assert.Equal(t, []string{"routers_add=8", "routers_reservation=none", "routers_result=9"}, Variants(features))
	assert.Equal(t, []string{"routers_add_8", "routers_reservation_none", "routers_result_9"}, Tags(features))
}

// The same pin with the backport's Rust half as a C API patch: the patch
// applies with the strict engine before cargo and the library has the
// four-call reservation form.
func TestCAPIPatchSeriesTurnsTheFeatureOn(t *testing.T) {
	pin := servedWorkspace(t)
	pin.Patches = []string{"capi/0001-add-prefill-reservation.patch"}
	pin.PatchPaths = []string{filepath.Join("testdata", "capi", "0001-add-prefill-reservation.patch")}
	c, err := FetchPin(context.Background(), pin, t.TempDir(), nil)
	require.NoError(t, err)
	defer c.Close()
	require.Len(t, c.Patches, 1)
	assert.Equal(t, "bindings/c: add the prefill reservation calls (backport)", c.Patches[0].Subject)

	res, features, _ := buildCheckout(t, c)
	assert.Equal(t, []string{"routers_add=8", "routers_reservation=4", "routers_result=9"}, Variants(features))
	assert.Contains(t, Tags(features), "routers_reservation_4")
	syms, err := ArchiveSymbols(res.Artifacts[0].Library)
	require.NoError(t, err)
	assert.True(t, syms["route_prefill_request_with_reservation"])
}
