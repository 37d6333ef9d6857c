package bump

import (
	"fmt"
	"slices"
	"strings"

	"github.com/epp-build/epp-build/internal/trailer"
)

// Subject is the patch's subject: every module with its new version, on
// one line, in the order given.
func Subject(bumps []Bump) string {
	var parts []string
	for _, b := range bumps {
		parts = append(parts, b.Module+" to "+b.To)
	}
	return "deps: bump " + strings.Join(parts, ", ")
}

// Message is the commit message of a bump: the subject, a body saying
// what moved and how (lint asks every patch for one), a Reason: trailer,
// an Order: trailer when the series changes go.mod or go.sum before it
// (lint asks for one when two patches change the same lines), and one
// Fixes: trailer per finding, sorted.
func Message(bumps []Bump, fixes []string, afterModChanges bool) string {
	var prose []string
	for _, b := range bumps {
		prose = append(prose, fmt.Sprintf("Raise %s from %s to %s.", b.Module, b.From, b.To))
	}
	body := strings.Join(prose, "\n") + "\n\nMade with go get and go mod tidy in the applied tree."
	reason := "keep the line's dependencies current"
	if len(fixes) > 0 {
		reason = "the new versions fix known vulnerabilities (Fixes: below)"
	}
	body = trailer.Add(body, "Reason", reason)
	if afterModChanges {
		body = trailer.Add(body, "Order", "after the series' own go.mod and go.sum changes, which go mod tidy ran on")
	}
	sorted := slices.Clone(fixes)
	slices.Sort(sorted)
	for _, id := range slices.Compact(sorted) {
		body = trailer.Add(body, "Fixes", id)
	}
	return Subject(bumps) + "\n\n" + strings.TrimRight(body, "\n") + "\n"
}
