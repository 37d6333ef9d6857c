package vulns_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/vulns"
	"github.com/epp-build/epp-build/internal/vulns/vulnstest"
)

func TestParseThresholdTakesFailOnLevels(t *testing.T) {
	for in, want := range map[string]vulns.Threshold{
		"fail-on=called":     vulns.FailCalled,
		"fail-on=imported":   vulns.FailImported,
		"fail-on=none":       vulns.FailNone,
		" fail-on = Called ": vulns.FailCalled,
	} {
		got, err := vulns.ParseThreshold(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "called", "fail-on=", "fail-on=required", "fail=called", "fail-on=called,imported"} {
		_, err := vulns.ParseThreshold(bad)
		assert.ErrorContains(t, err, "called|imported|none", "%q is refused, naming the levels", bad)
	}
}

// gateReport has one target with a finding at each level, and a called
// one a VEX statement answered for.
func gateReport() *vulns.Report {
	return &vulns.Report{Targets: []*vulns.Target{{Name: "epp linux/amd64", Findings: []vulns.Finding{
		{ID: "GO-2099-0001", Level: vulns.Called, Suppressed: &vulns.Suppression{Justification: "vulnerable_code_not_in_execute_path"}},
		{ID: "GO-2099-0002", Level: vulns.Imported},
		{ID: "GO-2099-0003", Level: vulns.Required},
	}}}}
}

func TestGateCountsUnsuppressedFindingsAtOrAboveTheThreshold(t *testing.T) {
	rep := gateReport()
	assert.NoError(t, rep.Gate(vulns.FailCalled), "the only called finding is suppressed")
	assert.NoError(t, rep.Gate(vulns.FailNone))

	err := rep.Gate(vulns.FailImported)
	var gate *vulns.GateError
	require.True(t, errors.As(err, &gate), "err = %v", err)
	assert.Equal(t, map[string]int{"epp linux/amd64": 1}, gate.Over, "the imported finding; required ones never count")
	assert.Equal(t, 10, gate.CLIExitCode())
	assert.Contains(t, err.Error(), "nothing was pushed")

	rep.Targets[0].Findings[0].Suppressed = nil
	require.True(t, errors.As(rep.Gate(vulns.FailCalled), &gate))
	assert.Equal(t, map[string]int{"epp linux/amd64": 1}, gate.Over)
	require.True(t, errors.As(rep.Gate(vulns.FailImported), &gate))
	assert.Equal(t, map[string]int{"epp linux/amd64": 2}, gate.Over)
}

// TestScanOfBuiltBinariesNamesThemByPlatformAndDigest scans what a build
// hands the gate, against the double database: the digest names the
// file, and the double's two findings come out at their levels.
func TestScanOfBuiltBinariesNamesThemByPlatformAndDigest(t *testing.T) {
	bin := vulnstest.PrintingBinary(t, "arm64", false)
	rep, err := vulns.Scan(context.Background(), vulns.Request{
		Built: []vulns.Binary{{Name: "epp linux/arm64", Platform: "linux/arm64", Path: bin}},
		DB:    vulnstest.DoubleDB(t),
	})
	require.NoError(t, err)
	require.Len(t, rep.Targets, 1)
	tg := rep.Targets[0]
	data, err := os.ReadFile(bin)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("sha256:%x", sha256.Sum256(data)), tg.Digest)
	assert.Equal(t, "linux/arm64", tg.Platform)
	assert.Equal(t, "epp linux/arm64", tg.Name)
	assert.False(t, rep.ScannedAt.IsZero())
	assert.Equal(t, []string{vulnstest.DoubleCalled + " called", vulnstest.DoubleImported + " imported"}, idLevels(tg.Findings))

	var gate *vulns.GateError
	require.True(t, errors.As(rep.Gate(vulns.FailCalled), &gate))
	assert.Equal(t, map[string]int{"epp linux/arm64": 1}, gate.Over)

	// Stripped, as builds strip the EPP: no symbol table, so every
	// vulnerable symbol of a linked package counts as called.
	stripped, err := vulns.Scan(context.Background(), vulns.Request{
		Built: []vulns.Binary{{Platform: "linux/arm64", Path: vulnstest.PrintingBinary(t, "arm64", true)}},
		DB:    vulnstest.DoubleDB(t),
	})
	require.NoError(t, err)
	assert.Equal(t, []string{vulnstest.DoubleCalled + " called", vulnstest.DoubleImported + " called"}, idLevels(stripped.Targets[0].Findings))
}

func idLevels(fs []vulns.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID+" "+string(f.Level))
	}
	return out
}
