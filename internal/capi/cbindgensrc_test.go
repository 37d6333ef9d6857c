package capi

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
)

const rust2024Fixture = "testdata/rust2024-workspace"

func TestRewriteUnsafeAttrs(t *testing.T) {
	src := `#[unsafe(no_mangle)]
pub unsafe extern "C" fn a() {}
#[unsafe( export_name = "b_c" )]
pub extern "C" fn b() {}
#[unsafe(link_section = ".text.x")]
static X: u8 = 0;
#[cfg_attr(feature = "f", unsafe(no_mangle))]
pub extern "C" fn c() {}
unsafe extern "C" {
    fn strlen(s: *const u8) -> usize;
}
fn d() { unsafe { e() } }
`
	want := `#[no_mangle]
pub unsafe extern "C" fn a() {}
#[export_name = "b_c"]
pub extern "C" fn b() {}
#[link_section = ".text.x"]
static X: u8 = 0;
#[cfg_attr(feature = "f", no_mangle)]
pub extern "C" fn c() {}
extern "C" {
    fn strlen(s: *const u8) -> usize;
}
fn d() { unsafe { e() } }
`
	got, changed := rewriteUnsafeAttrs([]byte(src))
	assert.True(t, changed)
	assert.Equal(t, want, string(got))
	_, changed = rewriteUnsafeAttrs([]byte(want))
	assert.False(t, changed, "edition 2021 source is left alone")
}

// snapshotTree maps every file under root to its content.
func snapshotTree(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[rel] = string(data)
		return err
	}))
	return files
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

// The copy links what cbindgen only reads and copies what cargo may write.
func TestCbindgenCopyNeverWritesThroughToTheCheckout(t *testing.T) {
	src := t.TempDir()
	write(t, filepath.Join(src, "Cargo.toml"), "[workspace]\n")
	write(t, filepath.Join(src, "Cargo.lock"), "# lock\n")
	write(t, filepath.Join(src, "c", "src", "lib.rs"), "#[unsafe(no_mangle)]\npub extern \"C\" fn f() {}\n")
	write(t, filepath.Join(src, "c", "README.md"), "docs\n")
	write(t, filepath.Join(src, "target", "release", "big"), "x")
	write(t, filepath.Join(src, ".git", "HEAD"), "x")
	dir, cleanup, err := cbindgenSourceDir(src, filepath.Join(src, "c"), t.TempDir())
	require.NoError(t, err)
	defer cleanup()
	root := filepath.Dir(dir)
	assert.Equal(t, "c", filepath.Base(dir))

	lib, err := os.ReadFile(filepath.Join(dir, "src", "lib.rs"))
	require.NoError(t, err)
	assert.Equal(t, "#[no_mangle]\npub extern \"C\" fn f() {}\n", string(lib))
	for _, name := range []string{"Cargo.toml", "Cargo.lock"} {
		fi, err := os.Lstat(filepath.Join(root, name))
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular(), "%s is a copy", name)
	}
	fi, err := os.Lstat(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "other files are linked")
	assert.NoDirExists(t, filepath.Join(root, "target"))
	assert.NoDirExists(t, filepath.Join(root, ".git"))

	write(t, filepath.Join(root, "Cargo.lock"), "# rewritten\n")
	lock, err := os.ReadFile(filepath.Join(src, "Cargo.lock"))
	require.NoError(t, err)
	assert.Equal(t, "# lock\n", string(lock))
	src2, err := os.ReadFile(filepath.Join(src, "c", "src", "lib.rs"))
	require.NoError(t, err)
	assert.Contains(t, string(src2), "unsafe(no_mangle)")
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
