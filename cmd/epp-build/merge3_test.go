package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	pathpkg "path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/diff3"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

var (
	stoppedAt = regexp.MustCompile(`rebase stopped at (\S+\.patch):`)
	markedIn  = regexp.MustCompile(`conflicts marked in \S+: (.+)\n`)
)

// cleanMergeIsGits checks a patch the rebase merged cleanly: each file
// it committed is what git merge-file makes of the same three texts.
func cleanMergeIsGits(t *testing.T, work, name string) {
	t.Helper()
	p := readRebasePatch(t, work, name)
	var commit string
	for _, line := range strings.Split(gitfixture.Git(t, work, "log", "--format=%H %s"), "\n") {
		if h, subject, _ := strings.Cut(line, " "); subject == p.Header.Title {
			commit = h
		}
	}
	require.NotEmpty(t, commit, "the commit of %s", name)
	for _, f := range p.Files {
		if f.IsNew || f.IsDelete {
			continue
		}
		base := readText(t, filepath.Join(work, ".git", "epp-build", "base", name, f.OldName))
		parent, err := exec.Command("git", "-C", work, "show", commit+"^:"+f.OldName).Output()
		require.NoError(t, err)
		var theirs bytes.Buffer
		require.NoError(t, gitdiff.Apply(&theirs, strings.NewReader(base), f))
		got, err := exec.Command("git", "-C", work, "show", commit+":"+f.NewName).Output()
		require.NoError(t, err)
		assert.Equal(t, gitMergeFile(t, base, string(parent), theirs.String()), string(got), "%s of %s", f.NewName, name)
	}
}

func readRebasePatch(t *testing.T, work, name string) *patchset.Patch {
	t.Helper()
	ps, err := patchset.ParseFile(filepath.Join(work, ".git", "epp-build", "rebase", name), name)
	require.NoError(t, err)
	require.Len(t, ps, 1)
	return ps[0]
}

// mergeInputs are the three texts of name's merge at the stop: the base
// the rebase kept, the file at HEAD (the new upstream with the earlier
// patches) and the base with the patch applied.
func mergeInputs(t *testing.T, work, patch string, p *patchset.Patch, name string) (base, ours, theirs string) {
	t.Helper()
	var f *gitdiff.File
	for _, pf := range p.Files {
		if pf.NewName == name {
			f = pf
		}
	}
	require.NotNil(t, f, "%s changes %s", patch, name)
	if !f.IsNew {
		base = readText(t, filepath.Join(work, ".git", "epp-build", "base", patch, name))
	}
	head, err := exec.Command("git", "-C", work, "show", "HEAD:"+name).Output()
	require.NoError(t, err)
	ours = string(head)
	var out bytes.Buffer
	require.NoError(t, gitdiff.Apply(&out, strings.NewReader(base), f))
	return base, ours, out.String()
}

func gitMergeFile(t *testing.T, base, ours, theirs string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"base": base, "ours": ours, "theirs": theirs} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	cmd := exec.Command("git", "merge-file", "--diff3", "-p", "ours", "base", "theirs")
	cmd.Dir = dir
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errorsAs(err, &exit) && exit.ExitCode() > 0 && exit.ExitCode() < 128) {
		require.NoError(t, err)
	}
	return string(out)
}

func errorsAs(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*target = e
	return ok
}

// markedLines counts the lines of conflict regions, markers included.
func markedLines(text string) int {
	n, in := 0, false
	for _, l := range diff3.Lines([]byte(text)) {
		if strings.HasPrefix(l, "<<<<<<<") {
			in = true
		}
		if in {
			n++
		}
		if strings.HasPrefix(l, ">>>>>>>") {
			in = false
		}
	}
	return n
}

// compilesAlone is what the compiler checks of a Go file on its own: it
// parses, and no name (an import's, a top-level declaration's, or a
// method's on its type) is declared twice. A merge whose sides do not
// line up fails here: a truncated file does not parse, and a hunk taken
// twice repeats an import or a function. What the file refers to
// elsewhere is the patch's business, not the merge's.
func compilesAlone(name, src string) error {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.AllErrors|parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	var problems []string
	seen := map[string]bool{}
	once := func(what, key string) {
		if seen[what+" "+key] {
			problems = append(problems, what+" "+key+" twice")
		}
		seen[what+" "+key] = true
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		local := pathpkg.Base(path)
		if imp.Name != nil {
			local = imp.Name.Name
		}
		// One path under two names is legal Go; one name twice is not.
		if local != "_" && local != "." {
			once("name", local)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			switch {
			case d.Recv != nil && len(d.Recv.List) == 1:
				once("method", receiverType(d.Recv.List[0].Type)+"."+d.Name.Name)
			case d.Name.Name != "init" && d.Name.Name != "_":
				once("name", d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					once("name", s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							once("name", n.Name)
						}
					}
				}
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %s", name, strings.Join(problems, ", "))
	}
	return nil
}

func TestCompilesAloneRefusesWhatAMisalignedMergeLeaves(t *testing.T) {
	const head = "package p\n\nimport (\n\t\"fmt\"\n\tstr \"strings\"\n)\n\n"
	ok := head + "type a struct{}\ntype b[T any] struct{}\n\nfunc (a) String() string { return fmt.Sprint(str.ToUpper(\"a\")) }\nfunc (*b[T]) String() string { return \"\" }\nfunc init() {}\nfunc init() {}\n\nvar _, _ = 1, 2\n"
	require.NoError(t, compilesAlone("ok.go", ok))
	require.NoError(t, compilesAlone("ok.go", strings.Replace(ok, "\t\"fmt\"\n", "\t\"fmt\"\n\tformat \"fmt\"\n\t_ \"fmt\"\n", 1)+"var _ = format.Sprint\n"),
		"one path under two names is legal")
	for name, src := range map[string]string{
		"an import taken from both sides":  strings.Replace(head, "\t\"fmt\"\n", "\t\"fmt\"\n\t\"fmt\"\n", 1) + "var x = fmt.Sprint()\n",
		"a function taken from both sides": head + "func f() {}\n\nfunc f() {}\n",
		"a method taken from both sides":   head + "type a struct{}\n\nfunc (*a) M() {}\nfunc (a) M() {}\n",
		"a name an import already has":     head + "func str() {}\n",
		"a truncated file":                 head + "func f() {\n\tif true {\n",
	} {
		assert.Error(t, compilesAlone("x.go", src), name)
	}
}

// receiverType is a method receiver's type name, without pointer or type
// parameters.
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return fmt.Sprintf("%T", e)
		}
	}
}

// takeSide resolves every conflict of text with one side: 0 ours, 1
// base, 2 theirs.
func takeSide(text string, side int) string {
	var b strings.Builder
	at := -1 // outside a conflict
	for _, l := range diff3.Lines([]byte(text)) {
		switch {
		case strings.HasPrefix(l, "<<<<<<<"):
			at = 0
		case strings.HasPrefix(l, "|||||||") && at >= 0:
			at = 1
		case strings.HasPrefix(l, "=======") && at >= 0:
			at = 2
		case strings.HasPrefix(l, ">>>>>>>") && at >= 0:
			at = -1
		case at < 0 || at == side:
			b.WriteString(l)
		}
	}
	return b.String()
}

// A pick that collides with the series stops with exit 6 and markers in
// the pick's work tree; --continue records the fix and writes the
// version, as git am -3 and git am --continue do.
func TestPickThatDoesNotApplyStopsAndContinues(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)
	before := snapshot(t, patches)

	// A fix made on v1 to the line the series' Route b changes.
	fix := gitfixture.NewAt(t, filepath.Join(t.TempDir(), "fixes"))
	fix.Git(t, "fetch", "-q", u.repo.Dir, "v1")
	fix.Git(t, "checkout", "-q", "FETCH_HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(fix.Dir, "b.txt"), []byte(strings.Replace(gitfixture.NumberedLines("b", 20), "b 1 line\n", "b 1 fixed\n", 1)), 0o644))
	fix.Git(t, "commit", "-q", "-am", "Fix b 1\n\nIt was wrong.")

	work := filepath.Join(t.TempDir(), "pick")
	r := run(t, cache, "--patches", patches, "pick", "--version", "v9", "--from", fix.Dir, "--dir", work,
		"--upstream-link", "https://example.com/pull/9", "--reason", "b was wrong", "HEAD")
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "conflicts marked in "+work+": b.txt")
	assert.Contains(t, r.stderr, "epp-build pick --continue --dir "+work)
	b := readText(t, filepath.Join(work, "b.txt"))
	assert.True(t, strings.HasPrefix(b, "<<<<<<< v9 with its series\nb = dynamo\n||||||| base of "), b)
	assert.Contains(t, b, "\nb 1 line\n=======\nb 1 fixed\n>>>>>>> ")
	assert.Equal(t, before, snapshot(t, patches), "nothing is written while stopped")

	require.NoError(t, os.WriteFile(filepath.Join(work, "b.txt"), []byte(strings.Replace(gitfixture.NumberedLines("b", 20), "b 1 line\n", "b = dynamo, fixed\n", 1)), 0o644))
	r = run(t, cache, "--patches", patches, "pick", "--continue", "--dir", work)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "picked 0005-Fix-b-1.patch into v9")
	patch := readText(t, filepath.Join(patches, "v9", "0005-Fix-b-1.patch"))
	assert.Contains(t, patch, "-b = dynamo\n+b = dynamo, fixed\n")
	assert.Contains(t, patch, "Reason: b was wrong")
	r = run(t, cache, "--patches", patches, "check", "--version", "v9")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
}
