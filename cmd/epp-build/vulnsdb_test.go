//go:build integration

package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/vulns/vulnstest"
)

// The scan against the pinned vulnerability database, which comes from
// the Go module proxy (integration tier).

func TestVulnsExitsTenOnACalledVulnerability(t *testing.T) {
	db := vulnstest.VulnDB(t)
	vulnstest.DownloadModules(t, vulnFixture)
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
