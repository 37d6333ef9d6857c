package diff3

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Both sides make one shared edit of a text whose lines repeat (braces,
// blank lines), then perhaps more of their own next to it: the shared
// edit merges cleanly only when both line diffs place it where git's do,
// so the merge is held to git merge-file on the text, the outcome and
// the number of conflict regions.
func TestMergeOfIdenticalEditsMatchesGitMergeFile(t *testing.T) {
	needGit(t)
	rng := rand.New(rand.NewPCG(3, 4))
	runs := 1000
	if testing.Short() {
		runs = 100
	}
	for k := 0; k < runs; k++ {
		base, ours, theirs := identicalEdits(rng)
		requireSameMerge(t, base, ours, theirs)
	}
}

// The texts where go-diff's minimal diff and git's differed: git's
// regions, not another minimal answer.
func TestMergeOfIdenticalEditsAmongRepeatedLines(t *testing.T) {
	needGit(t)
	for _, tc := range []struct{ base, ours, theirs string }{
		{"b\nu13\nc\n\nc\nu5\n", "b\nu13\na\nc\n\nu5\n", "b\nu13\n\na\nc\n\nu5\n"},
		{"}\nb\n}\nb\n}\na\na\nu10\n", "}\nb\ns1\n\n}\na\ns0\n", "}\nt0\n}\ns1\nb\n}\na\na\nt0\n"},
		{"\nb\nu3\n\nu25\nu41\n", "\nb\ns1\nu3\nu25\n\n", "b\nu3\na\nu25\n\n"},
	} {
		requireSameMerge(t, tc.base, tc.ours, tc.theirs)
	}
}

// Long texts from a small set of lines, edited far apart or rewritten
// whole, take xdiff past the costs where it stops searching for a
// minimal diff: its cuts are followed there too.
func TestMergeOfLongTextsMatchesGitMergeFile(t *testing.T) {
	needGit(t)
	if testing.Short() {
		t.Skip("long texts: a few seconds")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	random := func(n int) string {
		var b strings.Builder
		for ; n > 0; n-- {
			fmt.Fprintf(&b, "l%d\n", rng.IntN(300))
		}
		return b.String()
	}
	edits := func(s string) string {
		for n := rng.IntN(80); n >= 0; n-- {
			s = editRepeating(rng, s, "x")
		}
		return s
	}
	for k := 0; k < 10; k++ {
		base := random(2000 + rng.IntN(2000))
		shared := edits(base)
		ours, theirs := edits(shared), edits(shared)
		if k%2 == 0 {
			ours = random(3000)
		}
		requireSameMerge(t, base, ours, theirs)
	}
}

// Source-like texts: a few lines (blank, a closing brace) make up much of
// each file, the rest seldom repeat. xdiff leaves such a frequent line out
// of its search where it sits among lines the other file lacks, and past
// a cost (256 edits, more in long files) it cuts at a long common run or
// the furthest path; all of it shapes git's hunks.
func TestMergeOfSourceLikeTextsMatchesGitMergeFile(t *testing.T) {
	needGit(t)
	if testing.Short() {
		t.Skip("long texts: a few seconds")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	line := func() string {
		switch rng.IntN(6) {
		case 0, 1:
			return "\n"
		case 2:
			return "}\n"
		default:
			return fmt.Sprintf("s%d\n", rng.IntN(2000))
		}
	}
	text := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = line()
		}
		return out
	}
	edits := func(lines []string, n int) string {
		out := append([]string(nil), lines...)
		for ; n > 0; n-- {
			at := rng.IntN(len(out) + 1)
			switch rng.IntN(3) {
			case 0:
				if at < len(out) {
					out = append(out[:at:at], out[at+1:]...)
				}
			case 1:
				out = append(out[:at:at], append([]string{line()}, out[at:]...)...)
			default:
				if at < len(out) {
					out[at] = line()
				}
			}
		}
		return strings.Join(out, "")
	}
	for k := 0; k < 12; k++ {
		n := 200 + rng.IntN(300)
		if k == 0 {
			n = 40000 // over 65536 lines in all: xdiff's cost limit rises past its snake heuristic's
		}
		base := text(n)
		nEdits := n / 10
		if k == 0 {
			nEdits = 1500
		}
		shared := Lines([]byte(edits(base, nEdits)))
		requireSameMerge(t, strings.Join(base, ""), edits(shared, 1+rng.IntN(20)), edits(shared, 1+rng.IntN(20)))
	}
}

func requireSameMerge(t *testing.T, base, ours, theirs string) {
	t.Helper()
	want, clean := gitMergeFile(t, base, ours, theirs)
	got := Merge([]byte(base), []byte(ours), []byte(theirs), labels)
	require.Equal(t, clean, got.Clean(), "clean: base %q ours %q theirs %q", base, ours, theirs)
	require.Equal(t, strings.Count(want, "<<<<<<< ours\n"), len(got.Conflicts), "conflict regions: base %q ours %q theirs %q", base, ours, theirs)
	assert.Equal(t, want, string(got.Text), "base %q ours %q theirs %q", base, ours, theirs)
}

// identicalEdits is a base of repeated and unique lines, and two sides
// that share an edit of it: the same edit alone on both sides, one side
// adding more to it, or both adding their own.
func identicalEdits(rng *rand.Rand) (base, ours, theirs string) {
	repeated := []string{"a\n", "b\n", "c\n", "}\n", "\n"}
	var lines []string
	for n := rng.IntN(10); n > 0; n-- {
		if rng.IntN(2) == 0 {
			lines = append(lines, repeated[rng.IntN(len(repeated))])
		} else {
			lines = append(lines, fmt.Sprintf("u%d\n", rng.IntN(50)))
		}
	}
	base = strings.Join(lines, "")
	shared := editRepeating(rng, base, "s")
	ours, theirs = shared, shared
	switch rng.IntN(3) {
	case 0:
		theirs = editRepeating(rng, shared, "t")
	case 1:
		ours = editRepeating(rng, shared, "o")
		theirs = editRepeating(rng, shared, "t")
	}
	return base, ours, theirs
}

// editRepeating deletes, inserts and replaces one to three lines, writing
// lines that often repeat ones already there.
func editRepeating(rng *rand.Rand, text, side string) string {
	lines := Lines([]byte(text))
	for n := 1 + rng.IntN(3); n > 0; n-- {
		at := rng.IntN(len(lines) + 1)
		fresh := fmt.Sprintf("%s%d\n", side, rng.IntN(3))
		if rng.IntN(3) == 0 {
			fresh = []string{"a\n", "}\n", "\n"}[rng.IntN(3)]
		}
		switch rng.IntN(3) {
		case 0:
			if at < len(lines) {
				lines = append(lines[:at:at], lines[at+1:]...)
			}
		case 1:
			lines = append(lines[:at:at], append([]string{fresh}, lines[at:]...)...)
		default:
			if at < len(lines) {
				lines[at] = fresh
			}
		}
	}
	return strings.Join(lines, "")
}
