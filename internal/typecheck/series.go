package typecheck

import (
	"fmt"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/mod/modfile"

	"github.com/epp-build/epp-build/internal/patchset"
)

// Changed lists the files the series changed in the work tree dir: those
// differing between the upstream base (patchset.UpstreamRef) and HEAD.
func Changed(dir string) ([]string, error) {
	_, base, head, err := ends(dir)
	if err != nil {
		return nil, err
	}
	return changedBetween(base, head)
}

// ends opens dir's repository and its upstream base and HEAD commits.
func ends(dir string) (*git.Repository, *object.Commit, *object.Commit, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("open the work tree %s: %w", dir, err)
	}
	ref, err := repo.Reference(patchset.UpstreamRef, true)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s has no upstream base (%s): %w", dir, patchset.UpstreamRef, err)
	}
	base, err := repo.CommitObject(ref.Hash())
	if err != nil {
		return nil, nil, nil, err
	}
	h, err := repo.Head()
	if err != nil {
		return nil, nil, nil, err
	}
	head, err := repo.CommitObject(h.Hash())
	if err != nil {
		return nil, nil, nil, err
	}
	return repo, base, head, nil
}

func changedBetween(from, to *object.Commit) ([]string, error) {
	a, err := from.Tree()
	if err != nil {
		return nil, err
	}
	b, err := to.Tree()
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTree(a, b)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range changes {
		for _, name := range []string{c.From.Name, c.To.Name} {
			if name != "" && !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// MissingImport is a Go file a patch adds or changes that imports a
// package of the tree's own module which the tree does not hold after
// that patch: the patch does not compile on its own (a later patch adds
// the package, or none does).
type MissingImport struct {
	Patch  string // the patch (its commit's subject when the apply record does not name it)
	File   string
	Line   int
	Import string
}

func (m *MissingImport) Error() string {
	return fmt.Sprintf("%s: %s:%d imports %s, which the tree does not have after that patch", m.Patch, m.File, m.Line, m.Import)
}

// ImportsEachPatch checks, for each commit from the upstream base to HEAD
// of the work tree dir (one per patch), that every import of the module's
// own packages in the Go files the commit adds or changes names a folder
// holding Go files in that commit's tree. It parses imports only: cheap
// enough for every patch, where a full type-check is done once at the
// end. It returns every import that does not resolve, in series order.
func ImportsEachPatch(dir string) ([]MissingImport, error) {
	_, base, head, err := ends(dir)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	if rec, err := patchset.ReadRecord(dir); err == nil && rec != nil {
		for _, a := range rec.Patches {
			names[a.Commit] = a.File
		}
	}
	var chain []*object.Commit
	for c := head; c.Hash != base.Hash; {
		chain = append(chain, c)
		if c.NumParents() == 0 {
			return nil, fmt.Errorf("HEAD of %s does not descend from its upstream base %s", dir, base.Hash)
		}
		if c, err = c.Parent(0); err != nil {
			return nil, err
		}
	}
	var missing []MissingImport
	parent := base
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		patch := names[c.Hash.String()]
		if patch == "" {
			patch = strings.TrimSpace(strings.SplitN(c.Message, "\n", 2)[0])
		}
		m, err := commitImports(parent, c, patch)
		if err != nil {
			return nil, fmt.Errorf("check the imports of %s: %w", patch, err)
		}
		missing = append(missing, m...)
		parent = c
	}
	return missing, nil
}

func commitImports(parent, c *object.Commit, patch string) ([]MissingImport, error) {
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	module := ""
	if f, err := tree.File("go.mod"); err == nil {
		text, err := f.Contents()
		if err != nil {
			return nil, err
		}
		module = modfile.ModulePath([]byte(text))
	}
	if module == "" {
		return nil, nil
	}
	changed, err := changedBetween(parent, c)
	if err != nil {
		return nil, err
	}
	hasGo := map[string]bool{}
	packageAt := func(dir string) bool {
		if v, ok := hasGo[dir]; ok {
			return v
		}
		found := false
		if t, err := tree.Tree(dir); err == nil {
			for _, e := range t.Entries {
				if e.Mode.IsFile() && e.Mode != filemode.Symlink && strings.HasSuffix(e.Name, ".go") {
					found = true
					break
				}
			}
		}
		hasGo[dir] = found
		return found
	}
	var missing []MissingImport
	for _, name := range changed {
		if !strings.HasSuffix(name, ".go") || inIgnoredDir(name) {
			continue
		}
		f, err := tree.File(name)
		if err != nil {
			continue // deleted by this patch
		}
		src, err := f.Contents()
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, spec := range file.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				continue
			}
			rel, ok := strings.CutPrefix(p, module+"/")
			if !ok || packageAt(rel) {
				continue
			}
			missing = append(missing, MissingImport{Patch: patch, File: name, Line: fset.Position(spec.Pos()).Line, Import: p})
		}
	}
	return missing, nil
}

// inIgnoredDir is a file the go command never builds as part of the
// module: under testdata/, or a folder starting with . or _.
func inIgnoredDir(name string) bool {
	for _, part := range strings.Split(path.Dir(name), "/") {
		if part == "testdata" || strings.HasPrefix(part, ".") || strings.HasPrefix(part, "_") {
			return true
		}
	}
	return false
}

// SeriesImports checks a series against itself, without the upstream
// tree: a Go file a patch adds or changes may import a package the series
// adds (a folder of the module where a patch adds Go files that upstream
// does not have) only when that patch or an earlier one adds it. Imports
// of upstream's own packages are left to ImportsEachPatch, which has the
// tree. It returns every import made before its package, in series order.
func SeriesImports(module string, patches []*patchset.Patch) []MissingImport {
	added := map[string]int{} // folder -> the first patch adding Go files to it
	for i, p := range patches {
		for _, f := range p.Files {
			if f.IsNew && strings.HasSuffix(f.NewName, ".go") && !strings.HasSuffix(f.NewName, "_test.go") {
				d := path.Dir(f.NewName)
				if _, ok := added[d]; !ok {
					added[d] = i
				}
			}
		}
	}
	var missing []MissingImport
	for i, p := range patches {
		for _, f := range p.Files {
			if f.IsDelete || !strings.HasSuffix(f.NewName, ".go") || inIgnoredDir(f.NewName) {
				continue
			}
			for _, im := range addedImports(f) {
				rel, ok := strings.CutPrefix(im.path, module+"/")
				if !ok {
					continue
				}
				if first, ours := added[rel]; ours && first > i {
					missing = append(missing, MissingImport{Patch: p.Name(), File: f.NewName, Line: im.line, Import: im.path})
				}
			}
		}
	}
	return missing
}

type importLine struct {
	path string
	line int
}

// importSpec is an added line that reads as an import: `"path"`, with a
// name, or after the import keyword.
var importSpec = regexp.MustCompile(`^\s*(?:import\s+)?(?:[A-Za-z_][A-Za-z0-9_]*\s+|[._]\s+)?"([^"\s]+)"\s*(?://.*)?$`)

// addedImports are the imports a file's change adds: all of a new file's
// (parsed), the import-shaped added lines of a changed one.
func addedImports(f *gitdiff.File) []importLine {
	var out []importLine
	if f.IsNew {
		var src strings.Builder
		for _, frag := range f.TextFragments {
			for _, l := range frag.Lines {
				if l.Op == gitdiff.OpAdd {
					src.WriteString(l.Line)
				}
			}
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f.NewName, src.String(), parser.ImportsOnly)
		if err != nil {
			return nil // not Go the compiler would take either: the type-check says so
		}
		for _, spec := range file.Imports {
			if p, err := strconv.Unquote(spec.Path.Value); err == nil {
				out = append(out, importLine{p, fset.Position(spec.Pos()).Line})
			}
		}
		return out
	}
	for _, frag := range f.TextFragments {
		line := int(frag.NewPosition)
		for _, l := range frag.Lines {
			if l.Op == gitdiff.OpDelete {
				continue
			}
			if l.Op == gitdiff.OpAdd {
				if m := importSpec.FindStringSubmatch(strings.TrimRight(l.Line, "\n")); m != nil {
					out = append(out, importLine{m[1], line})
				}
			}
			line++
		}
	}
	return out
}
