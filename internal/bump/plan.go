package bump

import (
	"slices"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/epp-build/epp-build/internal/vulns"
)

// GoModule is the name a plan gives Go itself: the standard library's and
// the toolchain's findings are fixed by one Go release.
const GoModule = "go"

// Bump raises one module, or Go (GoModule), from one version to another;
// Fixes are the called findings the new version fixes.
type Bump struct {
	Module string   `json:"module"`
	From   string   `json:"from,omitempty"`
	To     string   `json:"to"`
	Fixes  []string `json:"fixes,omitempty"`
}

// Unfixed are the called findings of a module that no release fixes
// together with the others.
type Unfixed struct {
	Module  string   `json:"module"`
	Version string   `json:"version"`
	IDs     []string `json:"ids"`
}

// Plan is the smallest set of bumps that removes every called finding a
// release can remove: one per module, each to the lowest version that
// fixes all of that module's called findings.
type Plan struct {
	Bumps []Bump `json:"bumps"`
	// Toolchain is the lowest Go release that fixes every called finding
	// in the standard library (and the toolchain); nil when there is none.
	Toolchain *Bump     `json:"toolchain,omitempty"`
	Unfixed   []Unfixed `json:"unfixed,omitempty"`
}

// Empty reports whether the plan has nothing to do and nothing to say.
func (p *Plan) Empty() bool {
	return len(p.Bumps) == 0 && p.Toolchain == nil && len(p.Unfixed) == 0
}

// group is one module's called findings, by the name the plan gives it.
type group struct {
	module   string
	current  string // semver
	findings []vulns.Finding
}

// calledByModule groups the called, unsuppressed findings, Go's under
// GoModule, in the order the report lists them.
func calledByModule(findings []vulns.Finding) []*group {
	var out []*group
	byName := map[string]*group{}
	for _, f := range findings {
		if f.Level != vulns.Called || f.Suppressed != nil {
			continue
		}
		name := planName(f.Module)
		g := byName[name]
		if g == nil {
			g = &group{module: name, current: semverOf(f.Module, f.Version)}
			byName[name] = g
			out = append(out, g)
		}
		g.findings = append(g.findings, f)
	}
	return out
}

// PlanFixes computes the plan for a scan's findings; ranges are the
// scan's affected ranges (vulns.Target.Ranges). A finding without ranges
// is taken as fixed from its Fixed version on.
func PlanFixes(findings []vulns.Finding, ranges map[string][]vulns.Range) Plan {
	plan := Plan{Bumps: []Bump{}}
	for _, g := range calledByModule(findings) {
		var fixable []vulns.Finding
		var never []string
		candidates := g.candidates(ranges)
		for _, f := range g.findings {
			if slices.ContainsFunc(candidates, func(c string) bool { return fixedAt(f, c, ranges) }) {
				fixable = append(fixable, f)
			} else {
				never = append(never, f.ID)
			}
		}
		var to string
		for _, c := range candidates {
			if !slices.ContainsFunc(fixable, func(f vulns.Finding) bool { return !fixedAt(f, c, ranges) }) {
				to = c
				break
			}
		}
		if to == "" && len(fixable) > 0 {
			// Each is fixed somewhere, but no release fixes them all.
			for _, f := range fixable {
				never = append(never, f.ID)
			}
			fixable = nil
		}
		if len(never) > 0 {
			slices.Sort(never)
			plan.Unfixed = append(plan.Unfixed, Unfixed{Module: g.module, Version: displayName(g.module, g.current), IDs: slices.Compact(never)})
		}
		if to == "" || len(fixable) == 0 {
			continue
		}
		b := Bump{Module: g.module, From: displayName(g.module, g.current), To: displayName(g.module, to), Fixes: ids(fixable)}
		if g.module == GoModule {
			plan.Toolchain = &b
		} else {
			plan.Bumps = append(plan.Bumps, b)
		}
	}
	slices.SortFunc(plan.Bumps, func(a, b Bump) int { return strings.Compare(a.Module, b.Module) })
	return plan
}

// FixedBy lists the called findings of module (GoModule for Go) that
// version fixes: what a bump the user chose records as Fixes: trailers.
func FixedBy(findings []vulns.Finding, ranges map[string][]vulns.Range, module, version string) []string {
	var fixed []vulns.Finding
	for _, g := range calledByModule(findings) {
		if g.module != module {
			continue
		}
		v := semverOf(module, version)
		for _, f := range g.findings {
			if fixedAt(f, v, ranges) {
				fixed = append(fixed, f)
			}
		}
	}
	return ids(fixed)
}

// candidates are the versions above the current one at which some range
// of the group's findings ends, lowest first: the lowest version fixing
// them all is one of them. Go pre-releases are left out: no line is
// built with one.
func (g *group) candidates(ranges map[string][]vulns.Range) []string {
	var out []string
	for _, f := range g.findings {
		for _, r := range rangesOf(f, ranges) {
			if r.Fixed == "" || semver.Compare(r.Fixed, g.current) <= 0 {
				continue
			}
			if g.module == GoModule && semver.Prerelease(r.Fixed) != "" {
				continue
			}
			out = append(out, r.Fixed)
		}
	}
	slices.SortFunc(out, semver.Compare)
	return slices.Compact(out)
}

// fixedAt reports whether version v (semver) is outside every range of f.
func fixedAt(f vulns.Finding, v string, ranges map[string][]vulns.Range) bool {
	return !slices.ContainsFunc(rangesOf(f, ranges), func(r vulns.Range) bool { return r.Affects(v) })
}

func rangesOf(f vulns.Finding, ranges map[string][]vulns.Range) []vulns.Range {
	if rs := ranges[vulns.RangeKey(f.ID, f.Module)]; len(rs) > 0 {
		return rs
	}
	return []vulns.Range{{Fixed: semverOf(f.Module, f.Fixed)}}
}

func ids(fs []vulns.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func isGo(module string) bool {
	return module == GoModule || module == "stdlib" || module == "toolchain"
}

func planName(module string) string {
	if isGo(module) {
		return GoModule
	}
	return module
}

// semverOf is a version as semver compares it: Go's versions (go1.26.8,
// go1.27, go1.27rc1) as v1.26.8, v1.27.0, v1.27.0-rc.1; "" stays "".
func semverOf(module, v string) string {
	if v == "" {
		return ""
	}
	if !isGo(module) || !strings.HasPrefix(v, "go") {
		return "v" + strings.TrimPrefix(v, "v")
	}
	core := strings.TrimPrefix(v, "go")
	pre := ""
	if i := strings.IndexAny(core, "abcdefghijklmnopqrstuvwxyz"); i >= 0 {
		core, pre = core[:i], core[i:]
	}
	if strings.Count(core, ".") == 1 {
		core += ".0"
	}
	if pre != "" {
		// rc1 -> -rc.1, as the database writes Go's pre-releases.
		i := strings.IndexAny(pre, "0123456789")
		if i > 0 {
			pre = "-" + pre[:i] + "." + pre[i:]
		} else {
			pre = "-" + pre
		}
	}
	return "v" + core + pre
}

// displayName is a semver version as people name it for module: goX.Y.Z
// for Go.
func displayName(module, v string) string {
	if module != GoModule || v == "" {
		return v
	}
	return "go" + strings.TrimPrefix(v, "v")
}
