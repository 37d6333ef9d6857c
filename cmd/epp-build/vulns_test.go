package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
)

// vulnFixture calls golang.org/x/text v0.3.7's vulnerable
// language.ParseAcceptLanguage (GO-2022-1059).
var vulnFixture = filepath.Join("..", "..", "internal", "vulns", "testdata", "vulnerable")

func TestVulnsExitsTenOnACalledVulnerability(t *testing.T) {
	db := testutil.VulnDB(t)
	res := runEnv(t, t.TempDir(), []string{"GOWORK=off"}, "vulns", "--dir", vulnFixture, "--db", db.URL, "-o", "json", "-q")
	require.Equal(t, 10, res.code, "a called finding is exit 10; stderr:\n%s", res.stderr)
	var rep struct {
		DB      string
		Targets []struct {
			Name     string
			Findings []struct {
				ID, Module, Level string
				Trace             []string
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rep), "-o json is one document")
	assert.Equal(t, db.URL, rep.DB)
	require.Len(t, rep.Targets, 1)
	found := false
	for _, f := range rep.Targets[0].Findings {
		if f.ID == "GO-2022-1059" {
			found = true
			assert.Equal(t, "called", f.Level)
			assert.NotEmpty(t, f.Trace)
		}
	}
	assert.True(t, found, "GO-2022-1059 is reported: %s", res.stdout)
	assert.Contains(t, res.stderr, "called vulnerabilities", "the error says why it failed")
}

func TestVulnsUsageAndRefusals(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "vex.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"@context": "https://example.com/not-vex"}`), 0o644))
	for _, c := range []struct {
		code int
		args []string
	}{
		{2, []string{"vulns"}},
		{2, []string{"vulns", "--all", "--version", "v0.7.0"}},
		{2, []string{"vulns", "--dir", vulnFixture, "--dir", vulnFixture, "-o", "openvex"}},
		{2, []string{"vulns", "--dir", vulnFixture, "--db", "ftp://example.com/db"}},
		{2, []string{"vulns", "--dir", vulnFixture, "-o", "xml"}},
		{2, []string{"vulns", "--binary", vulnFixture}},
		{4, []string{"vulns", "--dir", vulnFixture, "--db", t.TempDir(), "--vex", bad}},
	} {
		res := run(t, t.TempDir(), c.args...)
		assert.Equal(t, c.code, res.code, "%v: stderr %s", c.args, res.stderr)
	}
}
