package review

import (
	"regexp"
	"strings"

	"github.com/epp-build/epp-build/internal/export"
)

// Change is how a patch differs between two versions' series.
type Change struct {
	Kind    string `json:"kind"` // same, changed, added, dropped
	Subject string `json:"subject"`
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
	// Interdiff shows how a changed patch's content changed.
	Interdiff string `json:"interdiff,omitempty"`
}

// DiffSeries compares series a and b patch by patch, matching patches by
// subject, in b's order with dropped patches where they stood in a.
func DiffSeries(a, b []Entry) []Change {
	inA := map[string]Entry{}
	for _, e := range a {
		inA[identity(e)] = e
	}
	inB := map[string]bool{}
	for _, e := range b {
		inB[identity(e)] = true
	}
	var out []Change
	ai := 0
	flushDropped := func(until string) {
		for ai < len(a) && identity(a[ai]) != until {
			if !inB[identity(a[ai])] {
				out = append(out, Change{Kind: "dropped", Subject: a[ai].Subject, Old: a[ai].File})
			}
			ai++
		}
	}
	for _, e := range b {
		old, ok := inA[identity(e)]
		if !ok {
			out = append(out, Change{Kind: "added", Subject: e.Subject, New: e.File})
			continue
		}
		flushDropped(identity(e))
		if ai < len(a) {
			ai++
		}
		c := Change{Kind: "same", Subject: e.Subject, Old: old.File, New: e.File}
		oldText, newText := content(old), content(e)
		if oldText != newText {
			c.Kind = "changed"
			c.Interdiff = export.UnifiedDiff(old.Version+"/"+old.File, e.Version+"/"+e.File, oldText, newText)
		}
		out = append(out, c)
	}
	flushDropped("\x00")
	return out
}

var (
	indexLine  = regexp.MustCompile(`(?m)^index [0-9a-f]+\.\.[0-9a-f]+.*\n`)
	hunkRanges = regexp.MustCompile(`(?m)^@@ -\d+(,\d+)? \+\d+(,\d+)? @@`)
)

// content is a patch's message and diff without what moves when the same
// change is applied to another base: blob ids and line numbers.
func content(e Entry) string {
	var b strings.Builder
	b.WriteString(e.patch.Header.Message())
	b.WriteString("\n\n")
	for _, f := range e.patch.Files {
		b.WriteString(f.String())
	}
	s := indexLine.ReplaceAllString(b.String(), "")
	return hunkRanges.ReplaceAllString(s, "@@")
}
