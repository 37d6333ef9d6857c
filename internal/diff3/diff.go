package diff3

import (
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// hunk is one change of a line diff from a to b: a[A:A+NA] became
// b[B:B+NB]. Hunks are in order and separated by at least one equal line.
type hunk struct{ A, NA, B, NB int }

// lineDiff is a minimal line diff of a and b whose changes sit where
// git's xdiff puts them: a change that could be shown at several places
// among equal lines is slid down as far as it goes, unless sliding it
// back up lines it up with a change on the other side (xdiff's
// change_compact without the indent heuristic, which merge-file does not
// use). The minimal diff itself comes from go-diff's Myers bisection.
func lineDiff(a, b []string) []hunk {
	ra, rb := toRunes(a, b)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // never trade minimality for time
	delA, addB := make([]bool, len(a)+1), make([]bool, len(b)+1)
	i, j := 0, 0
	for _, d := range dmp.DiffMainRunes(ra, rb, false) {
		n := utf8.RuneCountInString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			i, j = i+n, j+n
		case diffmatchpatch.DiffDelete:
			for k := 0; k < n; k++ {
				delA[i+k] = true
			}
			i += n
		case diffmatchpatch.DiffInsert:
			for k := 0; k < n; k++ {
				addB[j+k] = true
			}
			j += n
		}
	}
	compact(a, delA, addB)
	compact(b, addB, delA)
	return hunks(delA, addB, len(a), len(b))
}

// toRunes numbers the distinct lines of a and b, one rune each, so the
// character diff of go-diff becomes a line diff. Surrogates are skipped:
// they are not runes a string can hold.
func toRunes(a, b []string) ([]rune, []rune) {
	ids := map[string]rune{}
	next := rune(1)
	conv := func(lines []string) []rune {
		out := make([]rune, len(lines))
		for k, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = next
				ids[l] = id
				next++
				if next == 0xD800 {
					next = 0xE000
				}
			}
			out[k] = id
		}
		return out
	}
	return conv(a), conv(b)
}

// group is a run of changed lines [start, end) of one file (empty when
// start == end).
type group struct{ start, end int }

// compact slides the groups of changed lines of recs (marked in chg)
// as xdiff's xdl_change_compact does, keeping the groups of the other
// file (marked in other) in step. chg and other have one extra false
// entry at the end.
func compact(recs []string, chg, other []bool) {
	n, no := len(recs), len(other)-1
	g := firstGroup(chg, n)
	o := firstGroup(other, no)
	for {
		if g.end != g.start {
			for {
				size := g.end - g.start
				endMatchingOther := -1
				for slideUp(recs, chg, &g) {
					if !previousGroup(other, &o) {
						panic("diff3: groups out of step")
					}
				}
				earliestEnd := g.end
				if o.end > o.start {
					endMatchingOther = g.end
				}
				for slideDown(recs, chg, n, &g) {
					if !nextGroup(other, no, &o) {
						panic("diff3: groups out of step")
					}
					if o.end > o.start {
						endMatchingOther = g.end
					}
				}
				if size == g.end-g.start {
					if g.end != earliestEnd && endMatchingOther != -1 {
						for o.end == o.start {
							slideUp(recs, chg, &g)
							previousGroup(other, &o)
						}
					}
					break
				}
			}
		}
		if !nextGroup(chg, n, &g) {
			break
		}
		nextGroup(other, no, &o)
	}
}

func firstGroup(chg []bool, n int) group {
	end := 0
	for end < n && chg[end] {
		end++
	}
	return group{0, end}
}

// nextGroup moves to the group after the next unchanged line.
func nextGroup(chg []bool, n int, g *group) bool {
	if g.end == n {
		return false
	}
	g.start = g.end + 1
	g.end = g.start
	for g.end < n && chg[g.end] {
		g.end++
	}
	return true
}

// previousGroup moves to the group before the previous unchanged line.
func previousGroup(chg []bool, g *group) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	g.start = g.end
	for g.start > 0 && chg[g.start-1] {
		g.start--
	}
	return true
}

// slideDown moves a non-empty group down one line when the line after it
// equals its first line, swallowing a group it then touches.
func slideDown(recs []string, chg []bool, n int, g *group) bool {
	if g.end < n && recs[g.start] == recs[g.end] {
		chg[g.start] = false
		chg[g.end] = true
		g.start++
		g.end++
		for g.end < n && chg[g.end] {
			g.end++
		}
		return true
	}
	return false
}

// slideUp is slideDown's mirror.
func slideUp(recs []string, chg []bool, g *group) bool {
	if g.start > 0 && recs[g.start-1] == recs[g.end-1] {
		g.start--
		g.end--
		chg[g.start] = true
		chg[g.end] = false
		for g.start > 0 && chg[g.start-1] {
			g.start--
		}
		return true
	}
	return false
}

// hunks reads the changes off the two change maps.
func hunks(delA, addB []bool, na, nb int) []hunk {
	var out []hunk
	i, j := 0, 0
	for i < na || j < nb {
		if (i < na && delA[i]) || (j < nb && addB[j]) {
			h := hunk{A: i, B: j}
			for i < na && delA[i] {
				i++
			}
			for j < nb && addB[j] {
				j++
			}
			h.NA, h.NB = i-h.A, j-h.B
			out = append(out, h)
			continue
		}
		i++
		j++
	}
	return out
}
