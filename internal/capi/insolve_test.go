package capi

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/cheader"
)

// solvedDirDouble stands in for a solved stage's files: a folder here.
type solvedDirDouble struct{ root string }

func (d solvedDirDouble) ReadFile(_ context.Context, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(d.root, name))
}

func (d solvedDirDouble) ReadRange(_ context.Context, name string, off, n int64) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(d.root, name))
	if err != nil {
		return nil, err
	}
	if off >= int64(len(data)) {
		return nil, nil
	}
	return data[off:min(off+n, int64(len(data)))], nil
}

func (d solvedDirDouble) Files(_ context.Context, dir string) ([]string, error) {
	var out []string
	root := filepath.Join(d.root, dir)
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if os.IsNotExist(err) {
		return nil, nil
	}
	return out, err
}

// arWithSymbols is a GNU ar archive holding only a symbol index.
func arWithSymbols(names ...string) []byte {
	var body bytes.Buffer
	_ = binary.Write(&body, binary.BigEndian, uint32(len(names)))
	for range names {
		_ = binary.Write(&body, binary.BigEndian, uint32(0))
	}
	for _, n := range names {
		body.WriteString(n + "\x00")
	}
	if body.Len()%2 == 1 {
		body.WriteByte(0)
	}
	hdr := fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10d`\n", "/", "0", "0", "0", "0", body.Len())
	return append([]byte("!<arch>\n"+hdr), body.Bytes()...)
}

const (
	solvedBinding = `#include <stdint.h>
typedef uint32_t result_t;
result_t api_init(const char *ns, uint32_t block_size);
`
	solvedLibraryHeader = `#include <stdint.h>
typedef uint32_t result_t;
result_t api_init(const char *ns, uint32_t block_size);
result_t api_extra(uint64_t id);
`
	libOutDir = "/cache/target/t/release/build/libapi-1/out"
	depOutDir = "/cache/target/t/release/build/dep-2/out"
)

// solvedOutput writes one platform's stage output: cargo's messages, the
// library package's and a dependency's build-script headers, the archive
// and the toolchain files.
func solvedOutput(t *testing.T, libHeader string, symbols ...string) solvedDirDouble {
	t.Helper()
	root := t.TempDir()
	msgs := `{"reason":"build-script-executed","package_id":"dep 0.1.0","out_dir":"` + depOutDir + `"}
{"reason":"build-script-executed","package_id":"path+file:///capi/src#libapi@0.1.0","out_dir":"` + libOutDir + `"}
{"reason":"compiler-artifact","package_id":"path+file:///capi/src#libapi@0.1.0","target":{"kind":["staticlib"]}}
`
	write(t, filepath.Join(root, "cargo-messages.json"), msgs)
	write(t, filepath.Join(root, "outdirs", libOutDir, "gen", "api.h"), libHeader)
	write(t, filepath.Join(root, "outdirs", depOutDir, "zstd.h"), "int zstd(void);")
	write(t, filepath.Join(root, "lib", "libapi.a"), string(arWithSymbols(symbols...)))
	write(t, filepath.Join(root, "toolchain", "rustc"), "rustc 1.96.0 (x)\nbinary: rustc\n")
	write(t, filepath.Join(root, "toolchain", "cargo"), "cargo 1.96.0 (y)\n")
	write(t, filepath.Join(root, "toolchain", "cc"), "gcc-for-"+filepath.Base(root)+" 12\n")
	return solvedDirDouble{root: root}
}

func solvedCheck(t *testing.T) SolvedCheck {
	t.Helper()
	binding := t.TempDir()
	write(t, filepath.Join(binding, "b.h"), solvedBinding)
	write(t, filepath.Join(binding, "feature_extra.h"), "result_t api_extra(uint64_t id);\n")
	return SolvedCheck{Spec: SolveSpec{Crate: "libapi", Library: "api"}, CrateDir: t.TempDir(),
		BindingDir: binding, BindingHeader: "b.h"}
}

var bothSolved = []string{"linux/amd64", "linux/arm64"}

func TestCheckSolvedReadsTheLibraryPackagesHeaderAndDecidesFeatures(t *testing.T) {
	out := map[string]SolvedFS{
		"linux/amd64": solvedOutput(t, solvedLibraryHeader, "api_init", "api_extra"),
		"linux/arm64": solvedOutput(t, solvedLibraryHeader, "api_init"), // declared, not defined
	}
	c := solvedCheck(t)
	c.Cbindgen = func(context.Context) (SolvedFS, error) { t.Fatal("cbindgen is not needed"); return nil, nil }
	res, err := CheckSolved(context.Background(), out, bothSolved, c)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"linux/amd64": "api.h", "linux/arm64": "api.h"}, res.Headers,
		"the library package's header, not the dependency's")
	require.Len(t, res.Features, 1)
	f := res.Features[0]
	assert.Equal(t, "extra", f.Tag)
	assert.False(t, f.Enabled, "off: the arm64 archive does not define api_extra")
	assert.Equal(t, map[string][]string{"linux/arm64": {"api_extra"}}, f.Missing)
	assert.Empty(t, Tags(res.Features))
	assert.Equal(t, "rustc 1.96.0 (x)\nbinary: rustc", res.Rustc)
	assert.Equal(t, "cargo 1.96.0 (y)", res.Cargo)
	assert.Len(t, res.CC, 2)
	assert.Contains(t, res.CC["linux/arm64"], "gcc-for-")

	out["linux/arm64"] = solvedOutput(t, solvedLibraryHeader, "api_init", "api_extra")
	res, err = CheckSolved(context.Background(), out, bothSolved, c)
	require.NoError(t, err)
	assert.Equal(t, []string{"extra"}, Tags(res.Features), "on when every platform's library has it")
}

func TestCheckSolvedPrototypeMismatchIsTheCheckersError(t *testing.T) {
	wrong := strings.Replace(solvedLibraryHeader, "uint32_t block_size", "uint64_t block_size", 1)
	out := map[string]SolvedFS{
		"linux/amd64": solvedOutput(t, solvedLibraryHeader, "api_init"),
		"linux/arm64": solvedOutput(t, wrong, "api_init"),
	}
	_, err := CheckSolved(context.Background(), out, bothSolved, solvedCheck(t))
	var mismatch *cheader.MismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.Contains(t, err.Error(), "api_init")
	assert.Contains(t, err.Error(), "linux/arm64")
}

func TestCheckSolvedFallsBackToIncludeThenCbindgen(t *testing.T) {
	noHeader := func() SolvedFS {
		d := solvedOutput(t, solvedLibraryHeader, "api_init")
		require.NoError(t, os.RemoveAll(filepath.Join(d.root, "outdirs", libOutDir)))
		return d
	}
	out := map[string]SolvedFS{"linux/amd64": noHeader(), "linux/arm64": noHeader()}

	// The crate's include/ comes next (read on this machine).
	c := solvedCheck(t)
	write(t, filepath.Join(c.CrateDir, "include", "shipped.h"), solvedLibraryHeader)
	c.Cbindgen = func(context.Context) (SolvedFS, error) { t.Fatal("cbindgen is not needed"); return nil, nil }
	res, err := CheckSolved(context.Background(), out, bothSolved, c)
	require.NoError(t, err)
	assert.Equal(t, "shipped.h", res.Headers["linux/amd64"])

	// Then cbindgen, solved once for every platform.
	c = solvedCheck(t)
	calls := 0
	gen := solvedDirDouble{root: t.TempDir()}
	write(t, filepath.Join(gen.root, "cbindgen", "api.h"), solvedLibraryHeader)
	c.Cbindgen = func(context.Context) (SolvedFS, error) { calls++; return gen, nil }
	res, err = CheckSolved(context.Background(), out, bothSolved, c)
	require.NoError(t, err)
	assert.Equal(t, 1, calls)
	assert.Equal(t, "api.h", res.Headers["linux/arm64"])

	// cbindgen that wrote nothing: its log is the message.
	failed := solvedDirDouble{root: t.TempDir()}
	write(t, filepath.Join(failed.root, "cbindgen.log"), "ERROR: cannot parse the crate\n")
	c.Cbindgen = func(context.Context) (SolvedFS, error) { return failed, nil }
	_, err = CheckSolved(context.Background(), out, bothSolved, c)
	require.ErrorContains(t, err, "cannot parse the crate")

	// With cargo features cbindgen's CLI would describe another library.
	c.Spec.Features = []string{"pipeline08"}
	_, err = CheckSolved(context.Background(), out, bothSolved, c)
	require.ErrorContains(t, err, "cbindgen's command line cannot turn cargo features on")
}

func TestReadArchiveSymbolsReadsOnlyTheIndex(t *testing.T) {
	data := append(arWithSymbols("a", "bb"), bytes.Repeat([]byte{0}, 1<<20)...)
	var read int64
	syms, err := ReadArchiveSymbols("x.a", func(off, n int64) ([]byte, error) {
		read += n
		end := min(off+n, int64(len(data)))
		return data[off:end], nil
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{"a": true, "bb": true}, syms)
	assert.Less(t, read, int64(200), "the members after the index are not read")

	_, err = ReadArchiveSymbols("y.a", func(off, n int64) ([]byte, error) { return []byte("not an archive")[off:min(off+n, 14)], nil })
	require.ErrorContains(t, err, "y.a is not an ar archive")
}
