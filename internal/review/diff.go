package review

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/epp-build/epp-build/internal/export"
)

// Change is how a patch differs between two versions' series.
type Change struct {
	// Kind is same, moved (the same change at other lines of upstream),
	// changed, added or dropped.
	Kind    string `json:"kind"`
	Subject string `json:"subject"`
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
	// Moved are the distinct line offsets of a moved patch's hunks.
	Moved    []int64  `json:"moved,omitempty"`
	Upstream []string `json:"upstream,omitempty"`
	Reason   []string `json:"reason,omitempty"`
	// Interdiff shows how a changed patch's content changed.
	Interdiff string `json:"interdiff,omitempty"`
}

// Label is the change as a reader says it: "moved (+56)" for a moved one.
func (c Change) Label() string {
	if c.Kind != "moved" {
		return c.Kind
	}
	parts := make([]string, len(c.Moved))
	for i, m := range c.Moved {
		parts[i] = fmt.Sprintf("%+d", m)
	}
	return "moved (" + strings.Join(parts, ", ") + ")"
}

// Differ says whether the series differ: a patch added, dropped or
// changed. A moved patch is the same change, rebased.
func Differ(changes []Change) bool {
	for _, c := range changes {
		if c.Kind != "same" && c.Kind != "moved" {
			return true
		}
	}
	return false
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
	out := []Change{}
	ai := 0
	flushDropped := func(until string) {
		for ai < len(a) && identity(a[ai]) != until {
			if !inB[identity(a[ai])] {
				e := a[ai]
				out = append(out, Change{Kind: "dropped", Subject: e.Subject, Old: e.File, Upstream: e.Upstream, Reason: e.Reason})
			}
			ai++
		}
	}
	for _, e := range b {
		old, ok := inA[identity(e)]
		if !ok {
			out = append(out, Change{Kind: "added", Subject: e.Subject, New: e.File, Upstream: e.Upstream, Reason: e.Reason})
			continue
		}
		flushDropped(identity(e))
		if ai < len(a) {
			ai++
		}
		c := Change{Kind: "same", Subject: e.Subject, Old: old.File, New: e.File, Upstream: e.Upstream, Reason: e.Reason}
		oldText, newText := content(old), content(e)
		switch {
		case oldText != newText:
			c.Kind = "changed"
			c.Interdiff = export.UnifiedDiff(old.Version+"/"+old.File, e.Version+"/"+e.File, oldText, newText)
		default:
			if c.Moved = moved(old, e); len(c.Moved) > 0 {
				c.Kind = "moved"
			}
		}
		out = append(out, c)
	}
	flushDropped("\x00")
	return out
}

// moved lists the distinct offsets between the upstream lines two patches
// with the same content apply at, hunk by hunk.
func moved(a, b Entry) []int64 {
	pa, pb := hunkStarts(a), hunkStarts(b)
	if len(pa) != len(pb) {
		return nil
	}
	seen := map[int64]bool{}
	var out []int64
	for i := range pa {
		if d := pb[i] - pa[i]; d != 0 && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// hunkStarts is where each hunk of the patch starts in the upstream file.
func hunkStarts(e Entry) []int64 {
	var out []int64
	for _, f := range e.patch.Files {
		for _, h := range f.TextFragments {
			out = append(out, h.OldPosition)
		}
	}
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
