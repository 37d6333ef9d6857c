//go:build e2e

package intree

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/compile"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/stretchr/testify/require"
)

// release describes how a version's patched tree is checked.
type release struct {
	version string
	// binding is the folder of the in-tree cgo binding, where the C API
	// library is staged as lib/<goarch>/libdynamo_llm_capi.a.
	binding string
	// ours are the packages the series adds (vetted and tested);
	// upstream are upstream's packages the series touches (tested).
	ours, upstream []string
	// doubleFeatures are the cargo features of the C API test double this
	// release links (its C API's signatures); none for the default build.
	doubleFeatures string
	// tags are the Go build tags of the C API variant the double has (what
	// the build's C API stage would choose for it).
	tags string
}

var releases = []release{{
	version: "v0.7.0",
	binding: "pkg/epp/scheduling/plugins/dynamo/pipeline",
	ours: []string{
		"./pkg/bbr/dynamo/...", "./pkg/epp/requestcontrol/plugins/dynamo/...", "./pkg/epp/scheduling/plugins/dynamo/...",
	},
	upstream: []string{"./pkg/bbr/...", "./pkg/epp/requestcontrol/...", "./pkg/epp/scheduling/..."},
}, {
	version:        "v0.8.0",
	binding:        "pkg/epp/scheduling/plugins/dynamo/pipeline",
	doubleFeatures: "pipeline08",
	ours: []string{
		"./pkg/bbr/dynamo/...", "./pkg/epp/requestcontrol/plugins/dynamo/...", "./pkg/epp/scheduling/plugins/dynamo/...",
	},
	upstream: []string{"./pkg/epp/requestcontrol/...", "./pkg/epp/scheduling/..."},
}, {
	// GAIE v1.2.1 (the tag Dynamo's v0.9, v1.0 and v1.1 lines pin): one
	// cold build shared by those lines. The module proxy's .info for v1.2.1
	// carries no Origin; the source takes it on the checksum database's word.
	version:        "v0.9.1",
	binding:        "pkg/epp/scheduling/framework/plugins/dynamo/pipeline",
	doubleFeatures: "pipeline08",
	ours:           []string{"./pkg/epp/scheduling/framework/plugins/dynamo/..."},
}, {
	version:        "v1.0.1",
	binding:        "pkg/epp/scheduling/framework/plugins/dynamo/routers",
	doubleFeatures: "dynamo-v1.0",
	tags:           "routers_result_5,routers_add_6,routers_reservation_none",
	ours:           []string{"./pkg/epp/scheduling/framework/plugins/dynamo/..."},
}, {
	// GAIE v1.2.1 again (Dynamo's 1.1 line): the v0.9.1/v1.0.1 build
	// cache; the 1.1 library has the 7-field result and add_request only.
	version:        "v1.1.1",
	binding:        "pkg/epp/scheduling/framework/plugins/dynamo/routers",
	doubleFeatures: "dynamo-v1.1",
	tags:           "routers_result_7,routers_add_6,routers_reservation_none",
	ours:           []string{"./pkg/epp/scheduling/framework/plugins/dynamo/..."},
}, {
	// GAIE 206d40dca75d, shared with v1.3.1: one cold build for both. Both
	// lines' libraries have the 7-field result and add_request only.
	version:        "v1.2.1",
	binding:        "pkg/epp/framework/plugins/dynamo/routers",
	doubleFeatures: "dynamo-v1.1",
	tags:           "routers_result_7,routers_add_6,routers_reservation_none",
	ours:           []string{"./pkg/epp/framework/plugins/dynamo/..."},
	upstream:       []string{"./pkg/epp/handlers/..."}, // patch 0007
}, {
	version:        "v1.3.1",
	binding:        "pkg/epp/framework/plugins/dynamo/routers",
	doubleFeatures: "dynamo-v1.1",
	tags:           "routers_result_7,routers_add_6,routers_reservation_none",
	ours:           []string{"./pkg/epp/framework/plugins/dynamo/..."},
	upstream:       []string{"./pkg/epp/handlers/..."}, // patch 0007
}, {
	version:        "v1.4.2",
	binding:        "pkg/epp/framework/plugins/dynamo/routers",
	doubleFeatures: "dynamo-v1.4",
	tags:           "routers_result_9,routers_add_8,routers_reservation_none",
	ours:           []string{"./pkg/epp/framework/plugins/dynamo/..."},
	upstream:       []string{"./pkg/epp/handlers/..."}, // patch 0007
	// The series adds its own packages and registers them in cmd/epp;
	// building cmd/epp covers the rest of the upstream side.
}}

// TestReleaseTreeBuildsAndPasses applies each version through the module
// proxy source (what CI can reach), vets the new packages and runs them
// and upstream's touched packages, their test binaries linked with cgo
// against the C API test double. cmd/epp itself is built for every line
// by the deployed test (internal/deployed).
//
// Everything compiles with the image build's flags (treeFlags), not under
// -race: each GAIE pin's Kubernetes stack is then compiled once for this
// test, the integration suites and the deployed test. The race detector
// runs on the same plugin source in the plugin modules' own tests
// (`make nested`), against the same GAIE pins.
func TestReleaseTreeBuildsAndPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds GAIE: minutes on two cores")
	}
	testenv.Tool(t, "cargo", "the C API test double is built with cargo")
	for _, rel := range releases {
		t.Run(rel.version, func(t *testing.T) {
			dir := applyVersion(t, rel, t.TempDir())
			lib := filepath.Join(dir, filepath.FromSlash(rel.binding), "lib", runtime.GOARCH)
			require.NoError(t, os.MkdirAll(lib, 0o755))
			data, err := os.ReadFile(buildDouble(t, rel.doubleFeatures))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(lib, "libdynamo_llm_capi.a"), data, 0o644))

			flags := treeFlags(rel.tags)
			goCmd(t, dir, append(append([]string{"vet"}, flags...), rel.ours...)...)
			goCmd(t, dir, append(append([]string{"test", "-count=1"}, flags...), append(rel.ours, rel.upstream...)...)...)
		})
	}
}

// applyVersion applies patches/<version> into root/tree.
func applyVersion(t *testing.T, rel release, root string) string {
	version := rel.version
	r, err := recipe.LoadVersion(filepath.Join("..", "..", "patches"), version)
	require.NoError(t, err)
	patches, err := patchset.LoadSeries(r)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	fetch := func(ctx context.Context) (patchset.Base, error) {
		tree, err := source.Fetch(ctx, source.Request{Pin: r.Upstream, Kind: source.GoProxy})
		if err != nil {
			testenv.Require(t, "the Go module proxy", err.Error())
		}
		return patchset.Base{Upstream: tree.Upstream(), Materialize: tree.Materialize}, nil
	}
	out := filepath.Join(root, "tree")
	_, err = patchset.ApplyTo(ctx, r, patches, fetch, out, patchset.Options{Branch: "epp-build/" + version})
	require.NoError(t, err)
	return out
}

// doubles are the archives built so far, by cargo features: the tests
// that run side by side build each once, one at a time.
var doubles struct {
	sync.Mutex
	built map[string]string
}

// buildDouble builds the Rust C API test double with ffi/build-double.sh
// and returns the archive built with the given cargo features (the script
// builds the pipeline08 archive next to the default one).
func buildDouble(t *testing.T, features string) string {
	t.Helper()
	doubles.Lock()
	defer doubles.Unlock()
	if archive, ok := doubles.built[features]; ok {
		return archive
	}
	cache, err := os.UserCacheDir()
	require.NoError(t, err)
	target := filepath.Join(cache, "epp-build", "capi-double")
	cmd := exec.Command("bash", filepath.Join("..", "..", "ffi", "build-double.sh"))
	cmd.Env = append(os.Environ(), "CAPI_DOUBLE_TARGET_DIR="+target)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	if features != "" && features != "pipeline08" {
		// A routers variant: built here, not by the script, which would
		// also put it where ffi/'s own tests link it.
		cmd := exec.Command("cargo", "build", "--release", "--offline", "--quiet", "--features", features,
			"--manifest-path", filepath.Join("..", "..", "testdata", "capi-double", "Cargo.toml"), "--target-dir", target+"-"+features)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	if features != "" {
		target += "-" + features
	}
	archive := filepath.Join(target, "release", "libdynamo_llm_capi.a")
	if doubles.built == nil {
		doubles.built = map[string]string{}
	}
	doubles.built[features] = archive
	return archive
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOFLAGS=-mod=mod", "GOWORK=off",
		"GONOSUMDB=sigs.k8s.io/gateway-api-inference-extension")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("go %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Second))
	require.NoError(t, err, "go %s in %s:\n%s", strings.Join(args, " "), dir, out)
}

// treeFlags are the go flags every test here compiles a GAIE tree with:
// the image build's (compile.GoFlags), with the tree's C API variant tags
// (comma-separated, as releases lists them). The go command then files
// each package under the same build cache entry for every test that
// compiles it, and for the image build; -trimpath also makes a tree's
// packages the same whatever folder holds it.
func treeFlags(tags string) []string {
	var extra []string
	if tags != "" {
		extra = strings.Split(tags, ",")
	}
	return compile.GoFlags(extra)
}
