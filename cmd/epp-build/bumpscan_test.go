//go:build integration

package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/vulns"
)

// depVulnDB is a database of one vulnerability in the double's Hello,
// which the fixture upstream calls: fixed in v1.1.0.
func depVulnDB(t *testing.T) string {
	t.Helper()
	osv := t.TempDir()
	entry := `{"schema_version":"1.3.1","id":"GO-2026-0001","modified":"2026-01-01T00:00:00Z","published":"2026-01-01T00:00:00Z",` +
		`"aliases":["CVE-2026-0001"],"summary":"Hello says too much",` +
		`"affected":[{"package":{"name":"` + depModule + `","ecosystem":"Go"},` +
		`"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.1.0"}]}],` +
		`"ecosystem_specific":{"imports":[{"path":"` + depModule + `","symbols":["Hello"]}]}}]}`
	require.NoError(t, os.WriteFile(filepath.Join(osv, "GO-2026-0001.json"), []byte(entry), 0o644))
	out := filepath.Join(t.TempDir(), "db")
	_, err := vulns.IndexOSV(osv, out, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	return "file://" + out
}

// TestBumpFixCalledPlansFromAScan scans the fixture line, whose EPP calls
// the vulnerable Hello: the bump shows the plan, then writes the patch
// with the finding as its Fixes: trailer, and a second --fix-called finds
// nothing left to bump. It needs only Go and git, but two scans cost
// about 15 s each on 2 shared cores: it runs with the other scans, in
// the integration tier.
func TestBumpFixCalledPlansFromAScan(t *testing.T) {
	env := bumpEnv(t)
	patches, _ := bumpLine(t, env)
	cache, dir := t.TempDir(), filepath.Join(patches, "v9")
	db := depVulnDB(t)

	r := runEnv(t, cache, env, "--patches", patches, "bump", "--version", "v9", "--fix-called", "--db", db)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Regexp(t, `(?m)^  example\.com/dep +v1\.0\.0 +v1\.1\.0 +GO-2026-0001$`, r.stdout)
	assert.NotContains(t, r.stdout, "proposed", "the database has nothing for the standard library")
	patch, err := os.ReadFile(filepath.Join(dir, "0002-deps-bump-example.com-dep-to-v1.1.0.patch"))
	require.NoError(t, err)
	assert.Contains(t, string(patch), "\nFixes: GO-2026-0001\n")
	for _, c := range []string{"check", "lint"} {
		r := runEnv(t, cache, env, "--patches", patches, c, "--version", "v9")
		require.Equal(t, 0, r.code, c+": "+r.stdout+r.stderr)
	}

	// The scan of the bumped line finds nothing called: nothing to do.
	before := snapshot(t, patches)
	r = runEnv(t, cache, env, "--patches", patches, "bump", "--version", "v9", "--fix-called", "--db", db)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "v9: nothing to bump")
	assert.Contains(t, r.stdout, "v9: nothing written")
	assert.Equal(t, before, snapshot(t, patches))
}
