package capi

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
