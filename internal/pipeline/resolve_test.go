package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/testutil/tlsmodproxy"
)

// countResolves counts the option resolutions from here to the test's end.
func countResolves(t *testing.T) *int {
	t.Helper()
	n := 0
	saved := onResolve
	onResolve = func() { n++; saved() }
	t.Cleanup(func() { onResolve = saved })
	return &n
}

// countDecrypts counts the signing keys read and decrypted from here to
// the test's end.
func countDecrypts(t *testing.T) *int {
	t.Helper()
	n := 0
	saved := loadSigner
	loadSigner = func(path string) (*attest.Signer, error) { n++; return saved(path) }
	t.Cleanup(func() { loadSigner = saved })
	return &n
}

// oneCommandJob is a build command of three versions with three tag
// templates, a signing key, a CA bundle and a secret file, whose BuildKit
// node and registry nobody serves: it gets as far as the preflight of
// every version without a daemon.
func oneCommandJob(t *testing.T) Job {
	dir := t.TempDir()
	key, _ := testutil.WriteCosignKeyPair(t, dir, "pw")
	t.Setenv(attest.PasswordEnv, "pw")
	netrc := filepath.Join(dir, "netrc")
	require.NoError(t, os.WriteFile(netrc, []byte("machine goproxy.corp.example login ci password netrc-pw\n"), 0o600))
	opt := Options{
		Image:        "127.0.0.1:1/dynamo/epp:{{.Version}}",
		Tags:         []string{"{{.Version}}-{{.ShortCommit}}", "127.0.0.1:1/dynamo/epp:{{.UpstreamRef}}-{{.Version}}", "latest-{{.Version}}"},
		Platforms:    platforms(t, "linux/amd64"),
		Push:         true,
		BuildKit:     []string{"unix://" + filepath.Join(dir, "nobody-listens.sock")},
		Insecure:     true,
		CAPISrc:      t.TempDir(),
		Compile:      CompileContainer,
		BuilderImage: "127.0.0.1:1/builder:1",
		SBOM:         "false",
		SignKey:      key,
		CacheDir:     t.TempDir(),
		Report:       filepath.Join(dir, "report-{{.Version}}.json"),
		Env:          []string{"HOME=" + dir},
		Fetch:        FetchOptions{CABundle: tlsmodproxy.Serve(t, tlsmodproxy.Options{}).CAFile, Secrets: []string{"id=netrc,src=" + netrc}},
	}
	recipes := map[string]*recipe.Recipe{}
	for i, v := range []string{"v0.7.0", "v1.4.2", "v1.5.0"} {
		recipes[v] = &recipe.Recipe{Version: v, Upstream: recipe.Upstream{Ref: "v0.5." + itoa(i), Commit: strings.Repeat(itoa(i+1), 40)}}
	}
	return Job{Options: opt, Versions: []string{"v0.7.0", "v1.4.2", "v1.5.0"},
		Load: func(v string) (*recipe.Recipe, error) { return recipes[v], nil }}
}

// One build command resolves its options once, whatever its number of
// versions and tags: the files are read and the signing key decrypted
// once, not again in each version's preflight, release or dry run.
func TestOneBuildCommandResolvesItsOptionsOnce(t *testing.T) {
	job := oneCommandJob(t)

	resolved, decrypted := countResolves(t), countDecrypts(t)
	_, err := Build(context.Background(), job)
	var pe *PreflightError
	require.ErrorAs(t, err, &pe, "nothing serves the node or the registry")
	assert.Equal(t, 1, *resolved, "option resolutions in a build of 3 versions")
	assert.Equal(t, 1, *decrypted, "signing key decryptions in a build of 3 versions")

	job.DryRun = true
	*resolved, *decrypted = 0, 0
	out, err := Build(context.Background(), job)
	require.NoError(t, err)
	require.Len(t, out.Plans, 3)
	assert.Equal(t, 1, *resolved, "option resolutions in a dry run of 3 versions")
	assert.Equal(t, 1, *decrypted, "signing key decryptions in a dry run of 3 versions")
	assert.Equal(t, []string{"127.0.0.1:1/dynamo/epp:v1.4.2", "127.0.0.1:1/dynamo/epp:v1.4.2-" + strings.Repeat("2", 12),
		"127.0.0.1:1/dynamo/epp:v0.5.1-v1.4.2", "127.0.0.1:1/dynamo/epp:latest-v1.4.2"}, out.Plans[1].Tags)
	assert.True(t, strings.HasSuffix(out.Plans[2].Report, "report-v1.5.0.json"), out.Plans[2].Report)
}

// Two versions that would set the same tag, or write the same report,
// are refused before any of them is built.
func TestVersionsSharingATagOrAReportAreRefused(t *testing.T) {
	job := oneCommandJob(t)
	job.DryRun = true
	job.Options.Tags = []string{"latest"}
	_, err := Build(context.Background(), job)
	var oe *OptionsError
	require.ErrorAs(t, err, &oe)
	assert.Contains(t, err.Error(), "v0.7.0 and v1.4.2 would both be tagged 127.0.0.1:1/dynamo/epp:latest: put {{.Version}} in --image and --tag")

	job = oneCommandJob(t)
	job.DryRun = true
	job.Options.Report = "report.json"
	_, err = Build(context.Background(), job)
	require.ErrorAs(t, err, &oe)
	assert.Contains(t, err.Error(), "v0.7.0 and v1.4.2 would both write the report report.json")
}
