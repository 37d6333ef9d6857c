package bump

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/vulns"
)

func called(id, module, version, fixed string) vulns.Finding {
	return vulns.Finding{ID: id, Module: module, Version: version, Fixed: fixed, Level: vulns.Called}
}

func TestPlanRaisesEachModuleToTheLowestVersionFixingAllItsCalledFindings(t *testing.T) {
	findings := []vulns.Finding{
		called("GO-2026-0001", "example.com/a", "v1.1.0", "v1.2.0"),
		called("GO-2026-0002", "example.com/a", "v1.1.0", "v1.3.0"),
		called("GO-2026-0003", "example.com/b", "v0.4.0", "v0.5.0"),
		// Not called, or answered for by VEX: not the plan's business.
		{ID: "GO-2026-0004", Module: "example.com/c", Version: "v1.0.0", Fixed: "v9.0.0", Level: vulns.Imported},
		{ID: "GO-2026-0005", Module: "example.com/d", Version: "v1.0.0", Fixed: "v9.0.0", Level: vulns.Called, Suppressed: &vulns.Suppression{Justification: "vulnerable_code_not_in_execute_path"}},
	}
	ranges := map[string][]vulns.Range{
		vulns.RangeKey("GO-2026-0001", "example.com/a"): {{Fixed: "v1.2.0"}},
		vulns.RangeKey("GO-2026-0002", "example.com/a"): {{Fixed: "v1.3.0"}},
		vulns.RangeKey("GO-2026-0003", "example.com/b"): {{Introduced: "v0.2.0", Fixed: "v0.5.0"}},
	}
	p := PlanFixes(findings, ranges)
	assert.Equal(t, []Bump{
		{Module: "example.com/a", From: "v1.1.0", To: "v1.3.0", Fixes: []string{"GO-2026-0001", "GO-2026-0002"}},
		{Module: "example.com/b", From: "v0.4.0", To: "v0.5.0", Fixes: []string{"GO-2026-0003"}},
	}, p.Bumps)
	assert.Nil(t, p.Toolchain)
	assert.Empty(t, p.Unfixed)
}

// A fix of one finding may fall in a range another finding reintroduced;
// the plan skips past it rather than taking the highest first fix.
func TestPlanSkipsAFixThatAnotherFindingReintroduced(t *testing.T) {
	findings := []vulns.Finding{
		called("GO-2026-0011", "example.com/a", "v1.1.0", "v1.2.0"),
		called("GO-2026-0012", "example.com/a", "v1.1.0", "v1.4.1"),
	}
	ranges := map[string][]vulns.Range{
		vulns.RangeKey("GO-2026-0011", "example.com/a"): {{Fixed: "v1.2.0"}, {Introduced: "v1.4.0", Fixed: "v1.5.0"}},
		vulns.RangeKey("GO-2026-0012", "example.com/a"): {{Fixed: "v1.4.1"}},
	}
	p := PlanFixes(findings, ranges)
	assert.Equal(t, []Bump{{Module: "example.com/a", From: "v1.1.0", To: "v1.5.0", Fixes: []string{"GO-2026-0011", "GO-2026-0012"}}}, p.Bumps)
}

// Fixed on several release branches: the lowest fix at or above the
// version the line has, not the newest branch.
func TestPlanStaysOnTheLinesBranchWhenItHasAFix(t *testing.T) {
	findings := []vulns.Finding{called("GO-2026-0021", "google.golang.org/grpc", "v1.73.0", "v1.73.2")}
	ranges := map[string][]vulns.Range{
		vulns.RangeKey("GO-2026-0021", "google.golang.org/grpc"): {{Fixed: "v1.73.2"}, {Introduced: "v1.74.0", Fixed: "v1.79.3"}},
	}
	p := PlanFixes(findings, ranges)
	assert.Equal(t, "v1.73.2", p.Bumps[0].To)
	assert.Equal(t, []string{"GO-2026-0021"}, FixedBy(findings, ranges, "google.golang.org/grpc", "v1.79.3"))
	assert.Empty(t, FixedBy(findings, ranges, "google.golang.org/grpc", "v1.75.0"), "v1.75.0 is inside the second range")
}

func TestPlanProposesTheGoReleaseFixingTheStandardLibrary(t *testing.T) {
	findings := []vulns.Finding{
		called("GO-2026-0031", "stdlib", "go1.26.8", "go1.26.9"),
		called("GO-2026-0032", "stdlib", "go1.26.8", "go1.26.10"),
		called("GO-2026-0033", "toolchain", "go1.26.8", "go1.26.9"),
	}
	ranges := map[string][]vulns.Range{
		vulns.RangeKey("GO-2026-0031", "stdlib"): {{Fixed: "v1.25.12"}, {Introduced: "v1.26.0-0", Fixed: "v1.26.9"}},
		vulns.RangeKey("GO-2026-0032", "stdlib"): {{Introduced: "v1.26.0-0", Fixed: "v1.26.10"}, {Introduced: "v1.27.0-0", Fixed: "v1.27.0-rc.2"}},
	}
	p := PlanFixes(findings, ranges)
	assert.Empty(t, p.Bumps)
	assert.Equal(t, &Bump{Module: GoModule, From: "go1.26.8", To: "go1.26.10", Fixes: []string{"GO-2026-0031", "GO-2026-0032", "GO-2026-0033"}}, p.Toolchain)
	assert.Equal(t, []string{"GO-2026-0031", "GO-2026-0033"}, FixedBy(findings, ranges, GoModule, "go1.26.9"))
	assert.Equal(t, []string{"GO-2026-0031", "GO-2026-0032", "GO-2026-0033"}, FixedBy(findings, ranges, GoModule, "go1.27.3"))
}

func TestPlanNamesWhatNoReleaseFixes(t *testing.T) {
	findings := []vulns.Finding{
		called("GO-2026-0041", "example.com/a", "v1.1.0", ""),
		called("GO-2026-0042", "example.com/a", "v1.1.0", "v1.2.0"),
	}
	ranges := map[string][]vulns.Range{
		vulns.RangeKey("GO-2026-0041", "example.com/a"): {{Introduced: "v1.0.0"}},
		vulns.RangeKey("GO-2026-0042", "example.com/a"): {{Fixed: "v1.2.0"}},
	}
	p := PlanFixes(findings, ranges)
	assert.Equal(t, []Bump{{Module: "example.com/a", From: "v1.1.0", To: "v1.2.0", Fixes: []string{"GO-2026-0042"}}}, p.Bumps)
	assert.Equal(t, []Unfixed{{Module: "example.com/a", Version: "v1.1.0", IDs: []string{"GO-2026-0041"}}}, p.Unfixed)
}

// A report read back without the scanner's stream has no ranges: each
// finding's own fixed version stands for its range.
func TestPlanWithoutRangesUsesEachFindingsFixedVersion(t *testing.T) {
	findings := []vulns.Finding{
		called("GO-2026-0051", "example.com/a", "v1.1.0", "v1.2.0"),
		called("GO-2026-0052", "example.com/a", "v1.1.0", "v1.2.3"),
	}
	p := PlanFixes(findings, nil)
	assert.Equal(t, "v1.2.3", p.Bumps[0].To)
}

func TestGoVersionsCompareAsSemver(t *testing.T) {
	for in, want := range map[string]string{"go1.26.8": "v1.26.8", "go1.27": "v1.27.0", "go1.27rc1": "v1.27.0-rc.1", "": ""} {
		assert.Equal(t, want, semverOf("stdlib", in), in)
	}
	assert.Equal(t, "v0.45.0", semverOf("golang.org/x/net", "v0.45.0"))
	assert.Equal(t, "go1.26.10", displayName(GoModule, "v1.26.10"))
}

// The patch names the user's ids and every finding a bump or the
// toolchain fixes, each once, sorted.
func TestAllFixesJoinsTheUsersIdsAndThePlans(t *testing.T) {
	p := &Plan{
		Bumps:     []Bump{{Module: "example.com/a", Fixes: []string{"GO-2026-0002", "GO-2026-0001"}}, {Module: "example.com/b", Fixes: []string{"GO-2026-0003"}}},
		Toolchain: &Bump{Module: GoModule, Fixes: []string{"GO-2026-0009", "GO-2026-0002"}},
	}
	assert.Equal(t, []string{"GO-2025-3595", "GO-2026-0001", "GO-2026-0002", "GO-2026-0003", "GO-2026-0009"},
		allFixes([]string{"GO-2026-0003", "GO-2025-3595"}, p))
	assert.Empty(t, allFixes(nil, &Plan{}))
}
