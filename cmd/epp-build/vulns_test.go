package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vulnFixture calls golang.org/x/text v0.3.7's vulnerable
// language.ParseAcceptLanguage (GO-2022-1059).
var vulnFixture = filepath.Join("..", "..", "internal", "vulns", "testdata", "vulnerable")

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
