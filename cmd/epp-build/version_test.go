package main

import (
	"debug/buildinfo"
	"encoding/json"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain builds the binary inside this repository, which makes the go
// command stamp the commit it was built from (in a clone; it cannot in a
// git worktree).
func TestVersionNamesTheRevisionItWasBuiltFrom(t *testing.T) {
	head, err := gitfixture.TryGit("", "rev-parse", "HEAD")
	if err != nil {
		testenv.Require(t, "a git checkout", "the go command stamps its commit: "+err.Error())
	}
	bi, err := buildinfo.ReadFile(binary)
	require.NoError(t, err)
	stamped := false
	for _, s := range bi.Settings {
		stamped = stamped || s.Key == "vcs.revision"
	}
	if !stamped {
		testenv.Require(t, "VCS stamping", "the go command stamped no revision into "+binary)
	}
	res := run(t, t.TempDir(), "version", "-o", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var info struct{ Version, GoVersion, Revision string }
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &info))
	assert.Equal(t, head, info.Revision)
	assert.True(t, strings.HasPrefix(info.GoVersion, "go1."), info.GoVersion)

	flag := run(t, t.TempDir(), "--version")
	require.Equal(t, 0, flag.code, flag.stderr)
	text := run(t, t.TempDir(), "version")
	assert.Equal(t, text.stdout, flag.stdout, "--version and the version command print the same line")
	assert.Contains(t, flag.stdout, info.Revision)
}

// complete asks the binary what the shell would offer, as cobra's
// completion scripts do, and returns the candidates.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	res := run(t, t.TempDir(), append([]string{"__complete"}, args...)...)
	require.Equal(t, 0, res.code, res.stderr)
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		if line != "" && !strings.HasPrefix(line, ":") {
			out = append(out, line)
		}
	}
	return out
}

func TestCompletionOffersRecipesAndFlagValues(t *testing.T) {
	patches := "--patches=../../patches"
	versions := complete(t, patches, "apply", "--version", "")
	assert.Contains(t, versions, "v0.7.0")
	assert.Contains(t, versions, "v1.4.2")
	assert.Equal(t, versions, complete(t, patches, "diff-series", ""), "diff-series' arguments are versions")
	assert.Equal(t, versions, complete(t, patches, "diff-series", "v0.7.0", ""))
	assert.Empty(t, complete(t, patches, "diff-series", "v0.7.0", "v1.4.2", ""), "no third version")
	var v0 []string
	for _, v := range versions {
		if strings.HasPrefix(v, "v0.") {
			v0 = append(v0, v)
		}
	}
	require.NotEmpty(t, v0)
	assert.Equal(t, v0, complete(t, patches, "check", "--version", "v0."), "only the versions with the typed prefix")

	assert.Equal(t, []string{"auto", "git", "goproxy", "path"}, complete(t, "apply", "--source", ""))
	assert.Equal(t, []string{"host", "container"}, complete(t, "build", "--compile", ""))
	assert.Equal(t, []string{"linux/amd64,linux/arm64"}, complete(t, "build", "--platform", "linux/amd64,"),
		"a comma list is completed with the platforms not yet given")
	assert.Contains(t, complete(t, "log", "-o", ""), "json")
}

func TestHelpPlaceholdersAreNames(t *testing.T) {
	res := run(t, t.TempDir(), "apply", "--help")
	require.Equal(t, 0, res.code)
	assert.Contains(t, res.stdout, "--version VERSION")
	assert.NotContains(t, res.stdout, "--version epp-build")
	res = run(t, t.TempDir(), "export", "--help")
	assert.Contains(t, res.stdout, "--dir DIR")
	assert.NotContains(t, res.stdout, "--dir epp-build")
}
