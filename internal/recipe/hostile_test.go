//go:build unix

package recipe

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/inputfile"
)

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
}

// TestLoadRefusesHostileInputs: every input of a recipe that is not a
// bounded regular file inside its folder is refused by Load as invalid
// (exit 4), quickly, naming the file and what it is.
func TestLoadRefusesHostileInputs(t *testing.T) {
	defer func(l func() inputfile.Limit) { patchLimit = l }(patchLimit)
	patchLimit = func() inputfile.Limit { return inputfile.Limit{Bytes: 64, What: "a patch file", Raise: "raise it"} }

	const onePatch = pin + "patches: [0001-a.patch]\n"
	tests := []struct {
		name string
		// make writes the recipe in dir.
		make func(t *testing.T, dir string)
		want string
	}{
		{"recipe.yaml is a symlink to /dev/zero", func(t *testing.T, dir string) {
			require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, FileName)))
		}, "recipe.yaml is a symlink to /dev/zero (a character device), outside the recipe folder"},
		{"recipe.yaml is a FIFO", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, FileName))
		}, "recipe.yaml is a FIFO"},
		{"recipe.yaml is over 1 MiB", func(t *testing.T, dir string) {
			big := onePatch + "#" + strings.Repeat("x", inputfile.RecipeBytes) + "\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(big), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "0001-a.patch"), []byte("patch"), 0o644))
		}, "over the 1048576-byte limit for a recipe.yaml"},
		{"a patch is a symlink to /dev/zero", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(onePatch), 0o644))
			require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "0001-a.patch")))
		}, `patches[0] "0001-a.patch": ` + "DIR/0001-a.patch is a symlink to /dev/zero (a character device), outside the recipe folder"},
		{"a patch is a FIFO", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(onePatch), 0o644))
			mkfifo(t, filepath.Join(dir, "0001-a.patch"))
		}, "0001-a.patch is a FIFO (named pipe)"},
		{"a patch is a device", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(onePatch), 0o644))
			// A symlink inside the folder to the device itself: what is
			// refused is the device, not where the link points.
			require.NoError(t, os.Symlink("/dev/null", filepath.Join(dir, "null")))
			require.NoError(t, os.Symlink("null", filepath.Join(dir, "0001-a.patch")))
		}, "0001-a.patch is a symlink to /dev/null (a character device)"},
		{"a patch links out of the recipe folder", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(onePatch), 0o644))
			outside := filepath.Join(filepath.Dir(dir), "elsewhere.txt")
			require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o644))
			require.NoError(t, os.Symlink(outside, filepath.Join(dir, "0001-a.patch")))
		}, "elsewhere.txt, outside the recipe folder"},
		{"a patch is over the limit", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(onePatch), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "0001-a.patch"), []byte(strings.Repeat("+", 100)), 0o644))
		}, "0001-a.patch is 100 bytes, 36 over the 64-byte limit for a patch file; raise it"},
		{"a C API patch is a symlink to /dev/zero", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(pin+capiPin+"  patches: [capi/0001-fix.patch]\npatches: []\n"), 0o644))
			require.NoError(t, os.Mkdir(filepath.Join(dir, "capi"), 0o755))
			require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "capi", "0001-fix.patch")))
		}, `capi.patches[0] "capi/0001-fix.patch": ` + "DIR/capi/0001-fix.patch is a symlink to /dev/zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "v1")
			require.NoError(t, os.Mkdir(dir, 0o755))
			tt.make(t, dir)
			err := testutil.Returns(t, "the recipe call", func() error { _, err := Load(dir); return err })
			var invalid *ValidationError
			require.ErrorAs(t, err, &invalid, "refused as an invalid recipe (exit 4)")
			var refused *inputfile.Error
			assert.ErrorAs(t, err, &refused)
			assert.Contains(t, err.Error(), strings.ReplaceAll(tt.want, "DIR", dir))
		})
	}
}

func TestLoadAcceptsASymlinkInsideTheRecipeFolder(t *testing.T) {
	dir := writeRecipe(t, t.TempDir(), "v1", pin+"patches: [0001-a.patch]\n")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "a.diff"), []byte("patch"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join("src", "a.diff"), filepath.Join(dir, "0001-a.patch")))
	_, err := Load(dir)
	require.NoError(t, err)
}

func TestSetPatchesRefusesAnEndlessRecipe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v1")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, FileName)))
	err := testutil.Returns(t, "the recipe call", func() error { return SetPatches(dir, []string{"0001-a.patch"}) })
	var refused *inputfile.Error
	require.ErrorAs(t, err, &refused)
}

// TestLoadRefusesOptionsAndEscapes: a value that git or cargo would take
// for an option, or a folder that leaves the checkout or the repository,
// is refused when the recipe is loaded, not when the build runs it.
func TestLoadRefusesOptionsAndEscapes(t *testing.T) {
	capi := func(key, value string) string {
		return pin + strings.Replace(capiPin, "  "+key+": "+capiValue(key)+"\n", "  "+key+": "+value+"\n", 1) + "patches: []\n"
	}
	upstream := func(key, value string) string {
		return strings.Replace(pin, "  "+key+": ", "  "+key+": "+value+" #", 1) + "patches: []\n"
	}
	generated := func(from string) string {
		return pin + "generated:\n  - patch: 0001-a.patch\n    from: " + from + "\n    to: pkg/a\npatches: [0001-a.patch]\n"
	}
	tests := []struct{ name, recipe, want string }{
		{"capi.dir climbs out", capi("dir", `'../../..'`), `capi.dir "../../.." must be a relative folder inside the C API checkout`},
		{"capi.dir is absolute", capi("dir", `'/etc'`), `capi.dir "/etc" must be a relative folder inside the C API checkout`},
		{"capi.dir looks like an option", capi("dir", `'-rf'`), `capi.dir "-rf" must be a relative folder`},
		{"capi.crate is a cargo option", capi("crate", `'--config=build.rustc-wrapper=/tmp/x'`), `capi.crate "--config=build.rustc-wrapper=/tmp/x" must be a cargo package name`},
		{"capi.crate has a space", capi("crate", `'a b'`), `capi.crate "a b" must be a cargo package name`},
		{"capi.library is an option", capi("library", `'-lfoo'`), `capi.library "-lfoo" must be a library name`},
		{"capi.library has a slash", capi("library", `'../x'`), `capi.library "../x" must be a library name`},
		{"capi.ref is a git option", capi("ref", `'--upload-pack=touch /tmp/x'`), `capi.ref "--upload-pack=touch /tmp/x" must be a git tag, branch or commit`},
		{"capi.ref has a control character", capi("ref", `"v1\e[2J"`), `capi.ref "v1\x1b[2J" must be a git tag`},
		{"capi.repository is a git option", capi("repository", `'--upload-pack=x'`), `capi.repository "--upload-pack=x" must be a git URL or path`},
		{"upstream.ref is a git option", upstream("ref", `'--output=/tmp/x'`), `upstream.ref "--output=/tmp/x" must be a git tag, branch or commit`},
		{"upstream.ref climbs", upstream("ref", `'refs/../../x'`), `upstream.ref "refs/../../x" must be a git tag`},
		{"upstream.repository is a git option", upstream("repository", `'-oProxyCommand=x'`), `upstream.repository "-oProxyCommand=x" must be a git URL or path`},
		{"generated.from leaves the repository", generated(`'../../../../etc'`), `generated[0].from "../../../../etc" must be a folder of this repository`},
		{"generated.from is absolute", generated(`'/etc'`), `generated[0].from "/etc" must be a folder of this repository`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "patches")
			dir := writeRecipe(t, root, "v1", tt.recipe, "0001-a.patch")
			_, err := Load(dir)
			var invalid *ValidationError
			require.ErrorAs(t, err, &invalid)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	// The committed forms stay valid.
	root := filepath.Join(t.TempDir(), "patches")
	dir := writeRecipe(t, root, "v1", pin+capiPin+"generated:\n  - patch: 0001-a.patch\n    from: ../../plugins/p\n    to: pkg/a\npatches: [0001-a.patch]\n", "0001-a.patch")
	_, err := Load(dir)
	require.NoError(t, err)
	for i, ref := range []string{"refs/tags/v1.0.0", "release/1.2", "978c23bb96cce25f11cea2421523cb479026e2e9", "v0.0.0-20250102030405-0123456789ab"} {
		dir := writeRecipe(t, root, fmt.Sprint("ok", i), upstream("ref", ref))
		_, err := Load(dir)
		assert.NoError(t, err, "upstream.ref %s", ref)
	}
}

func capiValue(key string) string {
	for _, line := range strings.Split(capiPin, "\n") {
		if v, ok := strings.CutPrefix(line, "  "+key+": "); ok {
			return v
		}
	}
	panic("no " + key + " in capiPin")
}

func TestSetPatchesDoesNotWriteThroughWhatIsBesideTheRecipe(t *testing.T) {
	dir := writeRecipe(t, t.TempDir(), "v1", pin+"patches: []\n")
	mkfifo(t, filepath.Join(dir, FileName+".tmp"))
	outside := filepath.Join(t.TempDir(), "elsewhere")
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "."+FileName+".tmp")))
	err := testutil.Returns(t, "the recipe call", func() error { return SetPatches(dir, []string{"0001-a.patch"}) })
	require.NoError(t, err)
	assert.NoFileExists(t, outside)
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	require.NoError(t, err)
	assert.Contains(t, string(data), "0001-a.patch")
	fi, err := os.Stat(filepath.Join(dir, FileName))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
}
