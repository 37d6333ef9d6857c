package diff3

// hunk is one change of a line diff from a to b: a[A:A+NA] became
// b[B:B+NB]. Hunks are in order and separated by at least one equal line.
type hunk struct{ A, NA, B, NB int }

// lineDiff is the line diff of a and b that git's xdiff makes with its
// default Myers algorithm, so that both sides of a merge are cut into the
// hunks git cuts them into: among the many minimal diffs of texts with
// repeated lines, git picks one by how its search splits the files, and a
// merge of identical edits is clean only when both diffs place them
// alike. It follows xdl_do_diff: trim the common head and tail, discard
// lines the other file lacks (and runs of lines it has too often), split
// the rest on middle snakes (with xdiff's shortcuts for very long diffs),
// then slide the changes as xdl_change_compact does (without the indent
// heuristic, which merge-file does not use).
func lineDiff(a, b []string) []hunk {
	delA, addB := myers(a, b)
	compact(a, delA, addB)
	compact(b, addB, delA)
	return hunks(delA, addB, len(a), len(b))
}

// xdiff's tuning constants (xdiff/xdiffi.c, xprepare.c).
const (
	maxCostMin    = 256  // XDL_MAX_COST_MIN
	snakeCnt      = 20   // XDL_SNAKE_CNT
	heurMinCost   = 256  // XDL_HEUR_MIN_COST
	kHeur         = 4    // XDL_K_HEUR
	maxEqLimit    = 1024 // XDL_MAX_EQLIMIT
	simscanWindow = 100  // XDL_SIMSCAN_WINDOW
	kpdisRun      = 4    // XDL_KPDIS_RUN
)

// side is one file as xdiff's search sees it: the class of every line,
// the lines the search considers (ha, with their line numbers in rindex)
// and the change map it fills (one extra false entry at the end).
type side struct {
	class  []int
	ha     []int
	rindex []int
	chg    []bool
}

// myers marks the lines of a deleted and of b added.
func myers(a, b []string) ([]bool, []bool) {
	ids := map[string]int{}
	classes := func(lines []string) []int {
		out := make([]int, len(lines))
		for k, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[k] = id
		}
		return out
	}
	x := &side{class: classes(a), chg: make([]bool, len(a)+1)}
	y := &side{class: classes(b), chg: make([]bool, len(b)+1)}
	count := func(cl []int) []int {
		n := make([]int, len(ids))
		for _, c := range cl {
			n[c]++
		}
		return n
	}
	inA, inB := count(x.class), count(y.class)

	// Common head and tail (xdl_trim_ends).
	lim := min(len(a), len(b))
	start := 0
	for start < lim && x.class[start] == y.class[start] {
		start++
	}
	tail := 0
	for tail < lim-start && x.class[len(a)-1-tail] == y.class[len(b)-1-tail] {
		tail++
	}
	cleanup(x, start, len(a)-1-tail, inB)
	cleanup(y, start, len(b)-1-tail, inA)

	ndiags := len(x.ha) + len(y.ha) + 3
	e := &env{
		kv:     make([]int, 2*ndiags+2),
		fo:     len(y.ha) + 1,
		bo:     ndiags + len(y.ha) + 1,
		mxcost: max(bogosqrt(ndiags), maxCostMin),
	}
	e.recsCmp(x, 0, len(x.ha), y, 0, len(y.ha), false)
	return x.chg, y.chg
}

// cleanup keeps for the search the lines of s in [start, end] that the
// other file has, as xdl_cleanup_records does: a line the other file
// lacks is changed outright, and so is a line the other file has many
// times (at least about the square root of its length) when it sits
// among lines that are changed outright.
func cleanup(s *side, start, end int, inOther []int) {
	mlim := min(bogosqrt(len(s.class)), maxEqLimit)
	dis := make([]byte, len(s.class)+1)
	for i := start; i <= end; i++ {
		switch nm := inOther[s.class[i]]; {
		case nm == 0:
			dis[i] = 0
		case nm >= mlim:
			dis[i] = 2
		default:
			dis[i] = 1
		}
	}
	for i := start; i <= end; i++ {
		if dis[i] == 1 || dis[i] == 2 && !cleanMatch(dis, i, start, end) {
			s.rindex = append(s.rindex, i)
			s.ha = append(s.ha, s.class[i])
		} else {
			s.chg[i] = true
		}
	}
}

// cleanMatch is xdl_clean_mmatch: whether the much-repeated line i lies
// in a run of lines mostly without a match, and so is left out.
func cleanMatch(dis []byte, i, s, e int) bool {
	if i-s > simscanWindow {
		s = i - simscanWindow
	}
	if e-i > simscanWindow {
		e = i + simscanWindow
	}
	rdis0, rpdis0 := 0, 1
	for r := 1; i-r >= s; r++ {
		if dis[i-r] == 0 {
			rdis0++
		} else if dis[i-r] == 2 {
			rpdis0++
		} else {
			break
		}
	}
	if rdis0 == 0 {
		return false
	}
	rdis1, rpdis1 := 0, 1
	for r := 1; i+r <= e; r++ {
		if dis[i+r] == 0 {
			rdis1++
		} else if dis[i+r] == 2 {
			rpdis1++
		} else {
			break
		}
	}
	if rdis1 == 0 {
		return false
	}
	rdis1 += rdis0
	rpdis1 += rpdis0
	return rpdis1*kpdisRun < rpdis1+rdis1
}

// bogosqrt is xdiff's rough square root: a power of two.
func bogosqrt(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

// env holds the search's two diagonal vectors in one array: diagonal d
// of the forward vector is kv[fo+d], of the backward one kv[bo+d] (d may
// be negative, as in xdiff's pointer arithmetic).
type env struct {
	kv     []int
	fo, bo int
	mxcost int
}

func (e *env) fd(d int) *int { return &e.kv[e.fo+d] }
func (e *env) bd(d int) *int { return &e.kv[e.bo+d] }

const lineMax = int(^uint(0) >> 2) // XDL_LINE_MAX: beyond any line number

// recsCmp is xdl_recs_cmp: the lines x.ha[off1:lim1] against
// y.ha[off2:lim2], marking in chg what is not in their common subsequence.
func (e *env) recsCmp(x *side, off1, lim1 int, y *side, off2, lim2 int, needMin bool) {
	for off1 < lim1 && off2 < lim2 && x.ha[off1] == y.ha[off2] {
		off1++
		off2++
	}
	for off1 < lim1 && off2 < lim2 && x.ha[lim1-1] == y.ha[lim2-1] {
		lim1--
		lim2--
	}
	switch {
	case off1 == lim1:
		for ; off2 < lim2; off2++ {
			y.chg[y.rindex[off2]] = true
		}
	case off2 == lim2:
		for ; off1 < lim1; off1++ {
			x.chg[x.rindex[off1]] = true
		}
	default:
		i1, i2, minLo, minHi := e.split(x.ha, off1, lim1, y.ha, off2, lim2, needMin)
		e.recsCmp(x, off1, i1, y, off2, i2, minLo)
		e.recsCmp(x, i1, lim1, y, i2, lim2, minHi)
	}
}

// split is xdl_split: where the two files cut in two for a minimal diff
// (the middle of a shortest edit path, searched from both ends at once),
// or, past a cost, where a good enough cut is; and whether each half
// must then be searched for a minimal diff.
func (e *env) split(ha1 []int, off1, lim1 int, ha2 []int, off2, lim2 int, needMin bool) (int, int, bool, bool) {
	dmin, dmax := off1-lim2, lim1-off2
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax := fmid, fmid
	bmin, bmax := bmid, bmid
	*e.fd(fmid) = off1
	*e.bd(bmid) = lim1
	for ec := 1; ; ec++ {
		gotSnake := false
		if fmin > dmin {
			fmin--
			*e.fd(fmin - 1) = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			*e.fd(fmax + 1) = -1
		} else {
			fmax--
		}
		for d := fmax; d >= fmin; d -= 2 {
			var i1 int
			if *e.fd(d - 1) >= *e.fd(d + 1) {
				i1 = *e.fd(d - 1) + 1
			} else {
				i1 = *e.fd(d + 1)
			}
			prev1 := i1
			i2 := i1 - d
			for i1 < lim1 && i2 < lim2 && ha1[i1] == ha2[i2] {
				i1++
				i2++
			}
			if i1-prev1 > snakeCnt {
				gotSnake = true
			}
			*e.fd(d) = i1
			if odd && bmin <= d && d <= bmax && *e.bd(d) <= i1 {
				return i1, i2, true, true
			}
		}
		if bmin > dmin {
			bmin--
			*e.bd(bmin - 1) = lineMax
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			*e.bd(bmax + 1) = lineMax
		} else {
			bmax--
		}
		for d := bmax; d >= bmin; d -= 2 {
			var i1 int
			if *e.bd(d - 1) < *e.bd(d + 1) {
				i1 = *e.bd(d - 1)
			} else {
				i1 = *e.bd(d + 1) - 1
			}
			prev1 := i1
			i2 := i1 - d
			for i1 > off1 && i2 > off2 && ha1[i1-1] == ha2[i2-1] {
				i1--
				i2--
			}
			if prev1-i1 > snakeCnt {
				gotSnake = true
			}
			*e.bd(d) = i1
			if !odd && fmin <= d && d <= fmax && i1 <= *e.fd(d) {
				return i1, i2, true, true
			}
		}
		if needMin {
			continue
		}
		// Past heurMinCost edits, a long enough snake far along a
		// diagonal is taken as the cut.
		if gotSnake && ec > heurMinCost {
			best, s1, s2 := 0, 0, 0
			for d := fmax; d >= fmin; d -= 2 {
				dd := abs(d - fmid)
				i1 := *e.fd(d)
				i2 := i1 - d
				v := (i1 - off1) + (i2 - off2) - dd
				if v > kHeur*ec && v > best &&
					off1+snakeCnt <= i1 && i1 < lim1 &&
					off2+snakeCnt <= i2 && i2 < lim2 {
					for k := 1; ha1[i1-k] == ha2[i2-k]; k++ {
						if k == snakeCnt {
							best, s1, s2 = v, i1, i2
							break
						}
					}
				}
			}
			if best > 0 {
				return s1, s2, true, false
			}
			for d := bmax; d >= bmin; d -= 2 {
				dd := abs(d - bmid)
				i1 := *e.bd(d)
				i2 := i1 - d
				v := (lim1 - i1) + (lim2 - i2) - dd
				if v > kHeur*ec && v > best &&
					off1 < i1 && i1 <= lim1-snakeCnt &&
					off2 < i2 && i2 <= lim2-snakeCnt {
					for k := 0; ha1[i1+k] == ha2[i2+k]; k++ {
						if k == snakeCnt-1 {
							best, s1, s2 = v, i1, i2
							break
						}
					}
				}
			}
			if best > 0 {
				return s1, s2, false, true
			}
		}
		// Past the cost limit, the furthest reaching path of either
		// search is the cut.
		if ec >= e.mxcost {
			fbest, fbest1 := -1, -1
			for d := fmax; d >= fmin; d -= 2 {
				i1 := min(*e.fd(d), lim1)
				i2 := i1 - d
				if lim2 < i2 {
					i1, i2 = lim2+d, lim2
				}
				if fbest < i1+i2 {
					fbest, fbest1 = i1+i2, i1
				}
			}
			bbest, bbest1 := lineMax, lineMax
			for d := bmax; d >= bmin; d -= 2 {
				i1 := max(off1, *e.bd(d))
				i2 := i1 - d
				if i2 < off2 {
					i1, i2 = off2+d, off2
				}
				if i1+i2 < bbest {
					bbest, bbest1 = i1+i2, i1
				}
			}
			if (lim1+lim2)-bbest < fbest-(off1+off2) {
				return fbest1, fbest - fbest1, true, false
			}
			return bbest1, bbest - bbest1, false, true
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
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
