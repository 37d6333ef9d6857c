package diff3

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var labels = Labels{Ours: "ours", Base: "base", Theirs: "theirs"}

// gitMergeFile is `git merge-file --diff3 -p` on the three texts: the
// reference every merge here is held to.
func gitMergeFile(t testing.TB, base, ours, theirs string) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"base": base, "ours": ours, "theirs": theirs} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	cmd := exec.Command("git", "merge-file", "--diff3", "-p", "-L", "ours", "-L", "base", "-L", "theirs", "ours", "base", "theirs")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errorAs(err, &exit) && exit.ExitCode() > 0 && exit.ExitCode() < 128) {
		require.NoError(t, err)
	}
	return out.String(), err == nil
}

func errorAs(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*target = e
	return ok
}

func needGit(t testing.TB) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the merges are compared with git merge-file")
	}
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line " + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + "\n")
	}
	return b.String()
}

func TestMergeMatchesGitMergeFile(t *testing.T) {
	needGit(t)
	base := "package p\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc a() {\n\tfmt.Println(1)\n}\n\nfunc b() {\n\tos.Exit(2)\n}\n"
	for name, tc := range map[string]struct{ base, ours, theirs string }{
		"only ours changed":             {base, strings.Replace(base, "(1)", "(10)", 1), base},
		"only theirs changed":           {base, base, strings.Replace(base, "(2)", "(20)", 1)},
		"both changed apart":            {base, strings.Replace(base, "(1)", "(10)", 1), strings.Replace(base, "(2)", "(20)", 1)},
		"both changed alike":            {base, strings.Replace(base, "(1)", "(10)", 1), strings.Replace(base, "(1)", "(10)", 1)},
		"same line differently":         {base, strings.Replace(base, "(1)", "(10)", 1), strings.Replace(base, "(1)", "(11)", 1)},
		"adjacent lines conflict":       {"a\nb\nc\nd\n", "a\nB\nc\nd\n", "a\nb\nC\nd\n"},
		"import added on both sides":    {base, strings.Replace(base, "\t\"os\"\n", "\t\"os\"\n\t\"strings\"\n", 1), strings.Replace(base, "\t\"fmt\"\n", "\t\"context\"\n\t\"fmt\"\n", 1)},
		"insertions at the same place":  {"a\nb\n", "a\nx\nb\n", "a\ny\nb\n"},
		"same insertion both sides":     {"a\nb\n", "a\nx\nb\n", "a\nx\nb\n"},
		"ours deletes theirs edits":     {"a\nb\nc\nd\ne\n", "a\ne\n", "a\nb\nC\nd\ne\n"},
		"no newline at end":             {"a\nb", "a\nB", "a\nb\nc"},
		"no newline both sides differ":  {"a\nb", "a\nB", "a\nC"},
		"empty base (both added)":       {"", "one\ntwo\n", "one\nthree\n"},
		"empty ours":                    {"a\nb\n", "", "a\nB\n"},
		"everything empty":              {"", "", ""},
		"repeated lines slide":          {"x\nx\nx\ny\n", "x\nx\nx\nx\ny\n", "x\nx\ny\n"},
		"blank line insertions":         {"a\n\nb\n\nc\n", "a\n\nb\n\n\nc\n", "a\n\n\nb\n\nc\n"},
		"braces moved":                  {"f() {\n}\n\ng() {\n}\n", "f() {\n}\n\nh() {\n}\n\ng() {\n}\n", "f() {\n\tx\n}\n\ng() {\n}\n"},
		"two conflicts and clean parts": {numbered(30), strings.NewReplacer("line c\n", "line OURS c\n", "line xxm\n", "ours m\n", "line xt\n", "ours t\n").Replace(numbered(30)), strings.NewReplacer("line c\n", "line THEIRS c\n", "line xxm\n", "theirs m\n", "line xh\n", "theirs h\n").Replace(numbered(30))},
	} {
		want, clean := gitMergeFile(t, tc.base, tc.ours, tc.theirs)
		got := Merge([]byte(tc.base), []byte(tc.ours), []byte(tc.theirs), labels)
		assert.Equal(t, want, string(got.Text), name)
		assert.Equal(t, clean, got.Clean(), name)
	}
}

// Random edits of a text of distinct lines (where the line diffs have
// one minimal answer, so only the merging is compared) are merged as git
// merges them: the same conflict regions, the same clean regions.
func TestMergeMatchesGitMergeFileOnRandomEdits(t *testing.T) {
	needGit(t)
	rng := rand.New(rand.NewPCG(1, 2))
	runs := 300
	if testing.Short() {
		runs = 50
	}
	for k := 0; k < runs; k++ {
		base := distinctLines("b", rng.IntN(12))
		if rng.IntN(5) == 0 {
			base += "last line without a newline"
		}
		ours, theirs := edit(rng, base, "o"), edit(rng, base, "t")
		want, clean := gitMergeFile(t, base, ours, theirs)
		got := Merge([]byte(base), []byte(ours), []byte(theirs), labels)
		if !assert.Equal(t, want, string(got.Text), "base %q ours %q theirs %q", base, ours, theirs) {
			return
		}
		assert.Equal(t, clean, got.Clean())
	}
}

func distinctLines(prefix string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s%d\n", prefix, i)
	}
	return b.String()
}

// edit deletes, inserts and replaces a few lines of text; the lines it
// writes are new (named after side) except now and then one that the
// other side may write too, so both sides make the same change.
func edit(rng *rand.Rand, text, side string) string {
	lines := Lines([]byte(text))
	for n := rng.IntN(4); n > 0; n-- {
		at := rng.IntN(len(lines) + 1)
		fresh := fmt.Sprintf("%s%d\n", side, rng.IntN(1000))
		if rng.IntN(4) == 0 {
			fresh = "shared\n"
		}
		switch rng.IntN(3) {
		case 0:
			if at < len(lines) {
				lines = append(lines[:at:at], lines[at+1:]...)
			}
		case 1:
			lines = append(lines[:at:at], append([]string{fresh}, lines[at:]...)...)
		default:
			if at < len(lines) && strings.HasSuffix(lines[at], "\n") {
				lines[at] = fresh
			}
		}
	}
	return strings.Join(lines, "")
}
