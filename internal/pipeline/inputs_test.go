package pipeline

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/source"
)

func TestGoModulesOfTheTreeAndTheUpstreamVersion(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module sigs.k8s.io/gateway-api-inference-extension\n\ngo 1.24\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), []byte(
		"google.golang.org/grpc v1.71.0 h1:kF77BGdPTQ4/JZWMlb9VpJ5pa25aqvVqogsxNHHdeBg=\n"+
			"google.golang.org/grpc v1.71.0/go.mod h1:H0GRtasmQOh9LkFoCPDu3ZrwUtD1YGE+b2vYBYd/8Ec=\n"+
			"github.com/go-logr/logr v1.4.2 h1:6pFjapn8bFcIbiKo3XT4j/BhANplGihG6tvd+8rYgrY=\n"), 0o644))
	commit := "7c1f1994dbffb64036b0c22b8d6f7f9edb8d7c0c"
	in := Input{TreeDir: dir, Upstream: source.Upstream{UpstreamCommit: commit,
		UpstreamTime: time.Date(2026, 6, 3, 6, 51, 44, 0, time.UTC)}}

	main, mods := goModules(in)
	require.NotNil(t, main)
	assert.Equal(t, "sigs.k8s.io/gateway-api-inference-extension", main.Path)
	assert.Equal(t, "v0.0.0-20260603065144-7c1f1994dbff", main.Version, "an untagged pin: the proxy's pseudo-version")
	assert.Equal(t, []report.GoModule{
		{Path: "github.com/go-logr/logr", Version: "v1.4.2", Sum: "h1:6pFjapn8bFcIbiKo3XT4j/BhANplGihG6tvd+8rYgrY="},
		{Path: "google.golang.org/grpc", Version: "v1.71.0", Sum: "h1:kF77BGdPTQ4/JZWMlb9VpJ5pa25aqvVqogsxNHHdeBg="},
	}, mods, "module lines only, sorted")

	in.Recipe = &recipe.Recipe{Upstream: recipe.Upstream{Ref: "v0.5.1"}}
	main, _ = goModules(in)
	assert.Equal(t, "v0.5.1", main.Version, "a semver tag pin")
	in.Recipe.Upstream.ModuleVersion = "v0.5.1-rc.1"
	main, _ = goModules(in)
	assert.Equal(t, "v0.5.1-rc.1", main.Version, "the recipe's module version first")

	main, mods = goModules(Input{TreeDir: t.TempDir()})
	assert.Nil(t, main)
	assert.Nil(t, mods)
}

func TestCrateVersionFromTheCrateOrItsWorkspace(t *testing.T) {
	root := t.TempDir()
	crate := filepath.Join(root, "lib", "bindings", "c")
	require.NoError(t, os.MkdirAll(crate, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "Cargo.toml"), []byte("[workspace]\nmembers = [\"lib/bindings/c\"]\n\n[workspace.package]\nversion = \"0.7.0\"\nedition = \"2021\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(crate, "Cargo.toml"), []byte("[package]\nname = \"libdynamo_llm\"\nversion.workspace = true\n\n[dependencies]\nversion = \"9\"\n"), 0o644))
	assert.Equal(t, "0.7.0", crateVersion(&capi.Checkout{Root: root, CrateDir: "lib/bindings/c"}))

	require.NoError(t, os.WriteFile(filepath.Join(crate, "Cargo.toml"), []byte("[package]\nname = \"libdynamo_llm\"\nversion = \"0.0.0-double\"\n"), 0o644))
	assert.Equal(t, "0.0.0-double", crateVersion(&capi.Checkout{Root: root, CrateDir: "lib/bindings/c"}))
	assert.Equal(t, "", crateVersion(&capi.Checkout{Root: t.TempDir()}))
}
