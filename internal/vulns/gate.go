package vulns

import (
	"fmt"
	"slices"
	"strings"
)

// Threshold is the level at which a build's scan refuses the image: a
// finding at it or closer fails the gate; FailNone records the scan and
// never fails.
type Threshold string

const (
	FailCalled   Threshold = "called"
	FailImported Threshold = "imported"
	FailNone     Threshold = "none"
)

// thresholds are the values --vulns takes after fail-on=, most strict last.
var thresholds = []Threshold{FailCalled, FailImported, FailNone}

// ParseThreshold reads a --vulns value: fail-on=called|imported|none.
func ParseThreshold(s string) (Threshold, error) {
	key, value, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok || strings.TrimSpace(key) != "fail-on" {
		return "", fmt.Errorf("--vulns %q: want fail-on=%s", s, thresholdNames())
	}
	th := Threshold(strings.ToLower(strings.TrimSpace(value)))
	if !slices.Contains(thresholds, th) {
		return "", fmt.Errorf("--vulns %q: fail-on is one of %s", s, thresholdNames())
	}
	return th, nil
}

func thresholdNames() string {
	names := make([]string, len(thresholds))
	for i, th := range thresholds {
		names[i] = string(th)
	}
	return strings.Join(names, "|")
}

// fails says whether an unsuppressed finding at level l fails the gate.
func (th Threshold) fails(l Level) bool {
	switch th {
	case FailCalled:
		return l == Called
	case FailImported:
		return l == Called || l == Imported
	}
	return false
}

// GateError refuses an image: a scanned binary has findings at or above
// the threshold that no VEX statement answers for.
type GateError struct {
	Threshold Threshold
	// Over counts such findings per target name.
	Over map[string]int
}

func (e *GateError) Error() string {
	total, byTarget := countsByTarget(e.Over)
	return fmt.Sprintf("vulnerability gate (fail-on=%s): %d findings at or above %s (%s); nothing was pushed. Raise the modules to their fixed versions, or state in a --vex document why the EPP is not affected",
		e.Threshold, total, e.Threshold, byTarget)
}

// countsByTarget is the sum of counts and "name: n, ..." sorted by name.
func countsByTarget(counts map[string]int) (int, string) {
	var parts []string
	total := 0
	for name, n := range counts {
		parts = append(parts, fmt.Sprintf("%s: %d", name, n))
		total += n
	}
	slices.Sort(parts)
	return total, strings.Join(parts, ", ")
}

// Gate is a *GateError when a target has an unsuppressed finding th
// fails on, else nil.
func (r *Report) Gate(th Threshold) error {
	over := map[string]int{}
	for _, t := range r.Targets {
		for _, f := range t.Findings {
			if f.Suppressed == nil && th.fails(f.Level) {
				over[t.Name]++
			}
		}
	}
	if len(over) == 0 {
		return nil
	}
	return &GateError{Threshold: th, Over: over}
}
