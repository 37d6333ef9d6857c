package apply

import (
	"errors"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
)

// overlays returns, per patch file, the folders that patch adds from
// source kept in this repository. That source (plugins/, ffi/) lives here
// so it builds and tests here; the patch carries it with its import paths
// rewritten to where the series puts it in the upstream tree.
func overlays(r *recipe.Recipe) (map[string][]patchset.Overlay, error) {
	if len(r.Generated) == 0 {
		return nil, nil
	}
	if r.Upstream.Module == "" {
		return nil, fmt.Errorf("recipe %s: generated packages need upstream.module (the import path prefix inside the upstream tree)", r.Version)
	}
	rewrites := map[string]string{}
	dirs := make([]string, len(r.Generated))
	for i, g := range r.Generated {
		dirs[i] = g.FromDir
		from, err := importPath(dirs[i])
		if err != nil {
			return nil, fmt.Errorf("recipe %s: generated[%d] from %s: %w", r.Version, i, g.From, err)
		}
		rewrites[from] = r.Upstream.Module + "/" + strings.Trim(g.To, "/")
	}
	out := map[string][]patchset.Overlay{}
	// Entries of one patch with the same to make one folder: a release line
	// whose facts differ in a file or two takes a shared package with those
	// files excluded and adds its own from another folder.
	origin := map[string]map[string]int{} // patch + folder -> file -> entry
	for i, g := range r.Generated {
		files, err := readPackage(dirs[i], g.Exclude, rewrites)
		if err != nil {
			return nil, fmt.Errorf("recipe %s: generated[%d] from %s: %w", r.Version, i, g.From, err)
		}
		dir := strings.Trim(g.To, "/")
		key := g.Patch + "\x00" + dir
		if origin[key] == nil {
			origin[key] = map[string]int{}
			out[g.Patch] = append(out[g.Patch], patchset.Overlay{Dir: dir, Files: map[string]patchset.OverlayFile{}})
		}
		folder := out[g.Patch]
		var into map[string]patchset.OverlayFile
		for _, o := range folder {
			if o.Dir == dir {
				into = o.Files
			}
		}
		for name, f := range files {
			if j, dup := origin[key][name]; dup {
				return nil, fmt.Errorf("recipe %s: generated[%d] and generated[%d] both give %s/%s (exclude it from one)", r.Version, j, i, dir, name)
			}
			origin[key][name] = i
			into[name] = f
		}
	}
	return out, nil
}

// goModLimit and sourceLimit bound what regen reads of the generated
// packages' source: a go.mod is a few hundred bytes, a source file rarely a
// hundred KB.
var (
	goModLimit  = inputfile.Limit{Bytes: inputfile.RecipeBytes, What: "a go.mod"}
	sourceLimit = inputfile.Limit{Bytes: 16 << 20, What: "a generated package's file"}
)

// importPath is the Go import path of the package in dir, from the go.mod
// of the module holding it.
func importPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("no such folder")
	}
	for d := abs; ; d = filepath.Dir(d) {
		data, err := inputfile.ReadFile(filepath.Join(d, "go.mod"), "", goModLimit)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if err == nil {
			mod := modfile.ModulePath(data)
			if mod == "" {
				return "", fmt.Errorf("%s has no module line", filepath.Join(d, "go.mod"))
			}
			rel, err := filepath.Rel(d, abs)
			if err != nil {
				return "", err
			}
			if rel == "." {
				return mod, nil
			}
			return mod + "/" + filepath.ToSlash(rel), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("not inside a Go module (no go.mod above it)")
		}
	}
}

// readPackage reads the regular files of dir (not its subfolders, not
// go.mod/go.sum, none matching exclude) with Go imports rewritten.
func readPackage(dir string, exclude []string, rewrites map[string]string) (map[string]patchset.OverlayFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string]patchset.OverlayFile{}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || name == "go.mod" || name == "go.sum" || excluded(name, exclude) {
			continue
		}
		// The entry was a regular file when listed; opening it through
		// inputfile keeps a FIFO or a link swapped in since from being read.
		data, err := inputfile.ReadFile(filepath.Join(dir, name), dir, sourceLimit)
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(name, ".go") {
			if data, err = rewriteImports(name, data, rewrites); err != nil {
				return nil, err
			}
		}
		info, err := e.Info()
		if err != nil {
			return nil, err
		}
		files[name] = patchset.OverlayFile{Data: data, Executable: info.Mode()&0o111 != 0}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no files")
	}
	return files, nil
}

// rewriteImports changes only the import path literals named in rewrites
// (and paths below them), then formats the file as gofmt does.
func rewriteImports(name string, src []byte, rewrites map[string]string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: import %s: %w", name, imp.Path.Value, err)
		}
		if to, ok := rewrite(path, rewrites); ok {
			edits = append(edits, edit{fset.Position(imp.Path.Pos()).Offset, fset.Position(imp.Path.End()).Offset, strconv.Quote(to)})
		}
	}
	if len(edits) == 0 {
		return src, nil
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	formatted, err := format.Source(out)
	if err != nil {
		return nil, fmt.Errorf("%s: format after rewriting imports: %w", name, err)
	}
	return formatted, nil
}

func rewrite(path string, rewrites map[string]string) (string, bool) {
	best := ""
	for from := range rewrites {
		if (path == from || strings.HasPrefix(path, from+"/")) && len(from) > len(best) {
			best = from
		}
	}
	if best == "" {
		return "", false
	}
	return rewrites[best] + strings.TrimPrefix(path, best), true
}

func excluded(name string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
