package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/vulns/vulnstest"
)

// TestBuildVulnsFlagsAreCheckedBeforeAnyWork: a --vulns value that is not
// fail-on=LEVEL, gate settings without the gate, a gate the compile mode
// cannot run and a --vex document that is not OpenVEX are usage errors
// (exit 2) before anything is fetched or compiled.
func TestBuildVulnsFlagsAreCheckedBeforeAnyWork(t *testing.T) {
	notVEX := filepath.Join(t.TempDir(), "not.vex.json")
	require.NoError(t, os.WriteFile(notVEX, []byte(`{"@context": "https://example.com/not-vex"}`), 0o644))
	base := []string{"build", "--version", "v0.7.0", "--image", "127.0.0.1:1/dynamo/epp:v0.7.0", "--push", "--capi-src", t.TempDir()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--vulns", "fail-on=maybe"}, "fail-on is one of called|imported|none"},
		{[]string{"--vulns", "called"}, "want fail-on=called|imported|none"},
		{[]string{"--vex", notVEX}, "pass --vulns fail-on=called|imported|none too"},
		{[]string{"--vulns", "fail-on=called", "--vulns-db", "no such database"}, "give an https URL, file:///DIR or a folder"},
		{[]string{"--vulns", "fail-on=called", "--compile", "container", "--builder-image", "127.0.0.1:1/builder:1",
			"--buildkit", "linux/amd64=tcp://127.0.0.1:1", "--buildkit", "linux/arm64=tcp://127.0.0.1:2"}, "needs one BuildKit node for every platform"},
		{[]string{"--vulns", "fail-on=called", "--vex", notVEX}, "not OpenVEX's"},
	} {
		res := run(t, t.TempDir(), append(append([]string{}, base...), tc.args...)...)
		assert.Equal(t, 2, res.code, "%v: stderr:\n%s", tc.args, res.stderr)
		assert.Contains(t, res.stderr, tc.want, "%v", tc.args)
		assert.NotContains(t, res.stderr, "fetch", "%v: nothing is fetched", tc.args)
	}
	help := run(t, t.TempDir(), "build", "--help")
	assert.Contains(t, help.stdout, "--vulns fail-on=called")
	assert.Contains(t, help.stdout, "  10  vulns:", "exit 10 is in build's help")
	assert.Contains(t, help.stdout, "answers for (the findings are printed, nothing is pushed)")
}

// TestVulnsImageScansEachPlatformsBinary: vulns --image pulls /epp from
// each platform image of the index and scans it in binary mode, one
// target per platform, named by image digest, against the double database
// (GO-2099-0101 is fmt.Printf: called in both).
func TestVulnsImageScansEachPlatformsBinary(t *testing.T) {
	host := testutil.StartRegistry(t)
	files := map[string][]byte{}
	for _, arch := range []string{"amd64", "arm64"} {
		data, err := os.ReadFile(vulnstest.PrintingBinary(t, arch, false))
		require.NoError(t, err)
		files["linux/"+arch] = data
	}
	idx, err := imagetest.BinaryIndex("/epp", files)
	require.NoError(t, err)
	ref := host + "/dynamo/epp:v1.4.2"
	r, err := name.ParseReference(ref, name.Insecure)
	require.NoError(t, err)
	require.NoError(t, remote.WriteIndex(r, idx, remote.WithContext(context.Background())))

	res := run(t, t.TempDir(), "vulns", "--image", ref, "--insecure", "--db", vulnstest.DoubleDB(t), "-o", "json")
	require.Equal(t, 10, res.code, "a called finding is exit 10; stderr:\n%s", res.stderr)
	var rep struct {
		Targets []struct {
			Name, Kind, Mode, Platform, Digest string
			Findings                           []struct{ ID, Level string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rep), res.stdout)
	require.Len(t, rep.Targets, 2, "one target per platform")
	for i, p := range []string{"linux/amd64", "linux/arm64"} {
		tg := rep.Targets[i]
		assert.Equal(t, p, tg.Platform)
		assert.Equal(t, "binary", tg.Mode)
		assert.Contains(t, tg.Name, ref+" "+p+" (sha256:")
		assert.Equal(t, fmt.Sprintf("sha256:%x", sha256.Sum256(files[p])), tg.Digest, "%s: the digest of the image's /epp", p)
		require.NotEmpty(t, tg.Findings)
		assert.Equal(t, vulnstest.DoubleCalled, tg.Findings[0].ID)
		assert.Equal(t, "called", tg.Findings[0].Level)
	}

	missing := run(t, t.TempDir(), "vulns", "--image", host+"/dynamo/none:v1", "--insecure", "--db", vulnstest.DoubleDB(t))
	assert.NotEqual(t, 0, missing.code)
	assert.Contains(t, missing.stderr, "--image "+host+"/dynamo/none:v1")
}
