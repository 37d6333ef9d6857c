//go:build integration

package cheader

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
)

// The C API double's header and archive, regenerated with cbindgen and
// cargo and read with nm (integration tier).

// The checked-in headers must be what cbindgen writes from the crate today,
// and the bindings must match those fresh headers too.
func TestDoubleHeaderIsUpToDate(t *testing.T) {
	fresh := make(map[string]*Header, len(doubleHeaders))
	for _, h := range doubleHeaders {
		data := generateDoubleHeader(t, h.config)
		checkedIn, err := os.ReadFile(h.header)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(data, checkedIn),
			"%s is stale; regenerate it from %s (see the crate's README.md)", strings.TrimPrefix(h.header, "../../"), h.config)
		fresh[h.header], err = ParseHeader(data)
		require.NoError(t, err)
	}
	for header, lib := range bindingHeaders(t) {
		assert.NoError(t, Check(parseBinding(t, header), fresh[lib.header]), "%s against %s", header, lib.header)
	}
}

// generateDoubleHeader runs cbindgen on the double's crate with one of its
// configs and returns the header it writes.
func generateDoubleHeader(t *testing.T, config string, args ...string) []byte {
	t.Helper()
	cbindgen := testenv.Tool(t, "cbindgen", "regenerating the C API double's header")
	testenv.Tool(t, "cargo", "cbindgen reads the crate through cargo metadata")
	out := filepath.Join(t.TempDir(), "fresh.h")
	// --clean expands the crate (pipeline08's config) in a temporary
	// target folder, not under testdata; RUSTC_BOOTSTRAP lets a stable
	// rustc expand it.
	args = append([]string{"--config", config, "--crate", "libdynamo_llm", "--clean", "--output", out, "--quiet"}, args...)
	cmd := exec.Command(cbindgen, args...)
	cmd.Dir = doubleCrate
	cmd.Env = append(os.Environ(), "CARGO_NET_OFFLINE=true", "RUSTC_BOOTSTRAP=1")
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "cbindgen --config %s: %s", config, msg)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	return data
}

// Each function a binding declares must be a defined, global text symbol of
// the static library the binding links, when that library has been built.
func TestDoubleArchiveExportsEveryBindingSymbol(t *testing.T) {
	nm := testenv.Tool(t, "nm", "listing the symbols of the C API double's archive")
	for header, lib := range bindingHeaders(t) {
		if lib.header != doubleHeader && lib.header != doubleHeader08 {
			continue // a variant the default archive does not have (internal/capi builds each)
		}
		archive := filepath.Join(lib.dir, "lib", runtime.GOARCH, "libdynamo_llm_capi.a")
		if _, err := os.Stat(archive); err != nil {
			testenv.Require(t, archive, "build it with ffi/build-double.sh")
		}
		out, err := exec.Command(nm, "-g", "--defined-only", archive).Output()
		require.NoError(t, err, "nm %s", archive)
		exported := make(map[string]bool)
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) == 3 && f[1] == "T" {
				exported[f[2]] = true
			}
		}
		for name := range parseFile(t, header) {
			assert.True(t, exported[name], "%s: declared in %s but not exported by %s", name, header, archive)
		}
	}
}

// The bindings are plain C; Dynamo's cbindgen.toml writes C++ (using
// aliases for handle pointers, enums with an underlying type, uintptr_t for
// usize). Both styles of the same crate must satisfy every binding.
func TestBindingsMatchTheDoublesCppHeader(t *testing.T) {
	cpp := make(map[string]*Header, len(doubleHeaders))
	for _, h := range doubleHeaders {
		lib, err := ParseHeader(generateDoubleHeader(t, h.config, "--lang", "c++"))
		require.NoError(t, err, h.config)
		require.Contains(t, lib.Structs, "CRoutingResult", h.config)
		cpp[h.header] = lib
	}
	for header, lib := range bindingHeaders(t) {
		assert.NoError(t, Check(parseBinding(t, header), cpp[lib.header]), "%s against %s", header, lib.header)
	}
}
