//go:build integration

package pipeline

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/toolrelease"
)

// readmeSnippet is the indented block that follows heading in docs/ci.md,
// the CI page the README links.
func readmeSnippet(t *testing.T, heading string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "ci.md"))
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	in, seen := false, false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == heading:
			seen = true
		case seen && strings.HasPrefix(line, "    "):
			in = true
			lines = append(lines, strings.TrimPrefix(line, "    "))
		case in:
			return lines
		}
	}
	require.True(t, seen, "docs/ci.md has %q", heading)
	return lines
}

// The CI job of docs/ci.md runs as written from an empty folder: it downloads
// the binary and SHA256SUMS of a release (served here in place of
// GitHub's release downloads, so the folder starts empty), checks the
// binary against SHA256SUMS, builds the real
// GAIE v0.7.0 for two platforms (host mode: this machine's toolchains) on
// a real buildkitd, pushes to a real registry with two tags, writes the CI
// files, signs the report attestation with a cosign key given as a CI
// secret file (its password in the environment), and verifies each pushed
// image and its signature with the public key.
func TestREADMECISnippetRunsWithTheBinaryAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds GAIE for two arches: minutes")
	}
	requireDaemons(t)
	requireToolchains(t)
	snippet := readmeSnippet(t, "## A CI job with only the binary")
	require.Len(t, snippet, 5, "download (3), build, verify")
	const releaseHost = "https://github.com/epp-build/epp-build/releases/download/"
	version, ok := strings.CutPrefix(snippet[0], "release="+releaseHost)
	require.True(t, ok, "the job downloads a release: %s", snippet[0])

	tools := t.TempDir()
	bin := filepath.Join(tools, "epp-build")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/epp-build").CombinedOutput()
	require.NoError(t, err, "%s", out)
	binData, err := os.ReadFile(bin)
	require.NoError(t, err)
	rel := testutil.ServeRelease(t, version, map[string][]byte{toolrelease.BinaryName(version, "linux/amd64"): binData},
		toolrelease.ChecksumsFile, toolrelease.SignatureFile, nil)
	for _, tool := range []string{"curl", "sha256sum", "install"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Require(t, tool, err.Error())
		}
	}
	goenv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	require.NoError(t, err)
	caches := strings.Fields(string(goenv))
	require.Len(t, caches, 2)

	// The CI's secrets: key files outside the job folder, as a runner
	// writes them, and the password in the environment.
	const password = "ci-secret-password"
	key, pub := testutil.WriteCosignKeyPair(t, t.TempDir(), password)

	job := t.TempDir() // empty: the binary is downloaded into it
	script := strings.Replace(strings.Join(snippet, "\n"), releaseHost, rel.URL+"/", 1)
	cmd := exec.Command("/bin/bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = job
	cmd.Env = append(os.Environ(),
		"HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "DOCKER_CONFIG="+t.TempDir(), "EPP_BUILD_PATCHES=",
		// Go's build and module caches, as a CI runner restores them.
		"GOCACHE="+caches[0], "GOMODCACHE="+caches[1],
		"REGISTRY="+reg.Host, "BUILDKIT_HOST="+bk.Addr,
		"BASE_IMAGE=scratch", "SBOM_GENERATOR="+sbomGenerator, "CAPI_SRC="+copyCAPIDouble(t),
		// GAIE comes from the module proxy (its git host is not reachable
		// here), checked against the recipe's module hash.
		"GONOSUMDB=sigs.k8s.io/gateway-api-inference-extension",
		"COSIGN_KEY="+key, "COSIGN_PUB="+pub, "COSIGN_PASSWORD="+password,
	)
	start := time.Now()
	out, err = cmd.CombinedOutput()
	t.Logf("the CI job of docs/ci.md: %s", time.Since(start).Round(time.Second))
	require.NoError(t, err, "%s", tail(string(out), 6000))

	refs, err := os.ReadFile(filepath.Join(job, "image-refs.txt"))
	require.NoError(t, err)
	lines := strings.Fields(string(refs))
	require.Len(t, lines, 1)
	repo, dgst, ok := strings.Cut(lines[0], "@")
	require.True(t, ok, lines[0])
	assert.Equal(t, reg.Host+"/dynamo/epp", repo)
	assert.Contains(t, string(out), "verified "+lines[0], "the verify loop ran")
	// The build signed the report, and verify --key found that envelope.
	signed := regexp.MustCompile(`(?m)^signed: report sha256:[0-9a-f]{64}, envelope (sha256:[0-9a-f]{64}) in ` +
		regexp.QuoteMeta(reg.Host+"/dynamo/epp:sha256-") + `[0-9a-f]{64}\.att$`).FindStringSubmatch(string(out))
	require.NotNil(t, signed, "the build signed the report")
	verified := regexp.MustCompile(`(?m)^signed: the report's statement sha256:[0-9a-f]{64}, envelope (sha256:[0-9a-f]{64})$`).FindStringSubmatch(string(out))
	require.NotNil(t, verified, "verify --key checked the signature")
	assert.Equal(t, signed[1], verified[1])
	assert.NotContains(t, string(out), password, "the password is never printed")

	var meta map[string]any
	data, err := os.ReadFile(filepath.Join(job, "metadata.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &meta))
	assert.Equal(t, dgst, meta["containerimage.digest"])
	tags := []string{reg.Host + "/dynamo/epp:v0.7.0", reg.Host + "/dynamo/epp:v0.7.0-978c23bb96cc"}
	assert.Equal(t, strings.Join(tags, ","), meta["image.name"])
	desc, _ := meta["containerimage.descriptor"].(map[string]any)
	assert.Equal(t, "application/vnd.oci.image.index.v1+json", desc["mediaType"])
	assert.Equal(t, dgst, desc["digest"])

	for _, tag := range tags {
		idx, got := taggedIndex(t, tag)
		assert.Equal(t, dgst, got.String(), tag)
		m, err := idx.IndexManifest()
		require.NoError(t, err)
		assert.Equal(t, "v0.7.0", m.Annotations[OCIVersion])
		assert.Equal(t, "978c23bb96cce25f11cea2421523cb479026e2e9", m.Annotations[OCIRevision])
	}
	r, err := name.ParseReference(tags[0])
	require.NoError(t, err)
	img, err := remote.Image(r) // this machine's platform
	require.NoError(t, err)
	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, "https://github.com/kubernetes-sigs/gateway-api-inference-extension.git", cfg.Config.Labels[OCISource])
	for _, f := range []string{"epp-build", "metadata.json", "image-refs.txt", "report.json"} {
		assert.FileExists(t, filepath.Join(job, f))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
