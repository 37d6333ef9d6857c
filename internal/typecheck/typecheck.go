// Package typecheck type-checks the Go packages a patch series changes in
// an applied tree, and the packages that import them, with their tests.
//
// It compiles without linking (go list -export), so the C API library is
// not needed: a cgo binding compiles against the header it carries, and
// the go command tolerates the failed dynamic-import link of a package
// whose library is absent. It needs a C compiler for cgo packages and the
// modules the tree requires, fetched by the go command with the user's
// own settings (GOPROXY, GONOSUMDB, GOFLAGS, netrc), as every go build is.
package typecheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/modfile"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// Options tune one check.
type Options struct {
	// Env is added to the go command's environment (tests point the
	// build cache or the module proxy elsewhere with it).
	Env []string
}

// Result says what a check covered.
type Result struct {
	// Packages are the import paths type-checked, tests included.
	Packages []string `json:"packages,omitempty"`
	// Touched counts those the series changes; the rest import one.
	Touched int           `json:"touched"`
	Took    time.Duration `json:"took"`
	// Nothing says why nothing needed checking ("" when something was).
	Nothing string `json:"nothing,omitempty"`
}

// String is the one line the commands print for a passed check.
func (r *Result) String() string {
	if r == nil {
		return ""
	}
	if r.Nothing != "" {
		return "nothing to type-check: " + r.Nothing
	}
	return fmt.Sprintf("type-checked %d Go package(s) with their tests (%d the series changes, %d importing them) in %s",
		len(r.Packages), r.Touched, len(r.Packages)-r.Touched, r.Took.Round(100*time.Millisecond))
}

// Error is a tree that does not compile: the first error the go command
// reported, with its place when it named one.
type Error struct {
	Dir     string // the tree
	Package string // the package it was found in
	File    string // relative to Dir when inside it
	Line    int
	Col     int
	Msg     string
	// Output is the go command's whole report of that package.
	Output string
}

// CLIExitCode is 6, as a stale series is for check: the committed series
// is not one that can be released.
func (e *Error) CLIExitCode() int { return 6 }

// Place is "file:line" of the error, or the package when the go command
// named no place.
func (e *Error) Place() string {
	if e.File == "" {
		return e.Package
	}
	if e.Line == 0 {
		return e.File
	}
	return e.File + ":" + strconv.Itoa(e.Line)
}

func (e *Error) Error() string {
	// The tree's file names and the compiler's words about them come
	// from patches: escaped before they reach a terminal.
	where := textsafe.Escape(e.File)
	if e.Line > 0 {
		where += ":" + strconv.Itoa(e.Line)
		if e.Col > 0 {
			where += ":" + strconv.Itoa(e.Col)
		}
	}
	if where == "" {
		return fmt.Sprintf("the tree does not compile: %s: %s", textsafe.Escape(e.Package), textsafe.Escape(e.Msg))
	}
	return fmt.Sprintf("the tree does not compile: %s: %s (package %s)", where, textsafe.Escape(e.Msg), textsafe.Escape(e.Package))
}

// Tree type-checks the series applied in the work tree dir: the files
// changed since its upstream base (patchset.UpstreamRef), as Check.
func Tree(ctx context.Context, dir string, opt Options) (*Result, error) {
	changed, err := Changed(dir)
	if err != nil {
		return nil, err
	}
	return Check(ctx, dir, changed, opt)
}

// Check type-checks, in the Go module at the root of dir, the packages
// holding one of changed (paths relative to dir, as the series changed
// them) and every package of the module that imports one of them, each
// with its tests. A change to go.mod or go.sum checks every package.
func Check(ctx context.Context, dir string, changed []string, opt Options) (*Result, error) {
	start := time.Now()
	data, err := inputfile.ReadFile(filepath.Join(dir, "go.mod"), "", inputfile.Limit{Bytes: inputfile.RecipeBytes, What: "a go.mod"})
	if errors.Is(err, os.ErrNotExist) {
		return &Result{Nothing: "the tree has no go.mod at its root"}, nil
	}
	if err != nil {
		return nil, err
	}
	module := modfile.ModulePath(data)
	if module == "" {
		return nil, fmt.Errorf("%s has no module line", filepath.Join(dir, "go.mod"))
	}
	all, touched := touchedPackages(module, changed)
	if !all && len(touched) == 0 {
		return &Result{Nothing: "the series changes no Go package"}, nil
	}
	graph, err := listGraph(ctx, dir, opt)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	for _, p := range graph.order {
		switch {
		case all || touched[p]:
			res.Touched++
		case importsAny(graph.deps[p], touched):
		default:
			continue
		}
		res.Packages = append(res.Packages, p)
	}
	if len(res.Packages) == 0 {
		return &Result{Nothing: "the packages the series changes are not in the module " + module}, nil
	}
	if err := compile(ctx, dir, res.Packages, opt); err != nil {
		return nil, err
	}
	res.Took = time.Since(start)
	return res, nil
}

// sourceExt are the files whose change changes a package's compile: Go
// and what cgo compiles with it.
var sourceExt = map[string]bool{".go": true, ".c": true, ".h": true, ".cc": true, ".cpp": true, ".hh": true, ".hpp": true, ".s": true, ".S": true, ".syso": true}

// touchedPackages maps changed files to the import paths of their
// folders; all is set when the module's requirements changed.
func touchedPackages(module string, changed []string) (all bool, touched map[string]bool) {
	touched = map[string]bool{}
	for _, c := range changed {
		c = filepath.ToSlash(c)
		if c == "go.mod" || c == "go.sum" {
			all = true
			continue
		}
		if !sourceExt[path.Ext(c)] {
			continue
		}
		if d := path.Dir(c); d == "." {
			touched[module] = true
		} else {
			touched[module+"/"+d] = true
		}
	}
	return all, touched
}

func importsAny(deps []string, touched map[string]bool) bool {
	for _, d := range deps {
		if touched[d] {
			return true
		}
	}
	return false
}

// graph is the module's packages, each with what it and its tests import
// (transitively), by plain import path.
type graph struct {
	order []string
	deps  map[string][]string
}

// basePath is the package a test variant belongs to: "p [p.test]",
// "p_test [p.test]" and "p.test" are all p.
func basePath(importPath string) string {
	if i := strings.Index(importPath, " ["); i >= 0 {
		return strings.TrimSuffix(importPath[:i], "_test")
	}
	return strings.TrimSuffix(importPath, ".test")
}

func listGraph(ctx context.Context, dir string, opt Options) (*graph, error) {
	out, stderr, err := goCommand(ctx, dir, opt, "list", "-e", "-test", "-f", "{{.ImportPath}}\t{{join .Deps \" \"}}", "./...")
	if err != nil {
		return nil, fmt.Errorf("list the packages of %s: %w%s", dir, err, tailOf(stderr))
	}
	g := &graph{deps: map[string][]string{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		ip, deps, _ := strings.Cut(sc.Text(), "\t")
		p := basePath(ip)
		if p == "" {
			continue
		}
		if _, seen := g.deps[p]; !seen {
			g.order = append(g.order, p)
			g.deps[p] = nil
		}
		for _, d := range strings.Fields(deps) {
			g.deps[p] = append(g.deps[p], basePath(d))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("list the packages of %s: %w", dir, err)
	}
	sort.Strings(g.order)
	return g, nil
}

// listed is what go list -json says of a package it compiled.
type listed struct {
	ImportPath string
	Error      *packageError
	DepsErrors []*packageError
}

type packageError struct {
	ImportStack []string
	Pos         string
	Err         string
}

// compileFlags are the image build's (compile.GoFlags without feature
// tags): compiled with the same flags, the packages a build or a suite run
// already compiled come from the Go build cache, and with -trimpath the
// tree's own packages do too, wherever the tree lies. Their file names are
// then module paths, which relativeTo maps back into the tree.
var compileFlags = []string{"-trimpath", "-tags=netgo,osusergo"}

// compile builds the packages and their tests to export data: a full
// type-check of each, no link.
func compile(ctx context.Context, dir string, pkgs []string, opt Options) error {
	args := append(append([]string{"list", "-e", "-export", "-test", "-json=ImportPath,Error,DepsErrors"}, compileFlags...), pkgs...)
	out, stderr, err := goCommand(ctx, dir, opt, args...)
	if err != nil {
		return fmt.Errorf("type-check the packages of %s: %w%s", dir, err, tailOf(stderr))
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var firstDeps *Error
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return fmt.Errorf("read go list's answer in %s: %w", dir, err)
		}
		if p.Error != nil && strings.HasPrefix(p.Error.Err, "no non-test Go files") {
			// A folder of tests only: its test packages are listed and
			// checked on their own.
			p.Error = nil
		}
		if p.Error != nil {
			return newError(dir, basePath(p.ImportPath), p.Error)
		}
		if firstDeps == nil && len(p.DepsErrors) > 0 {
			firstDeps = newError(dir, basePath(p.ImportPath), p.DepsErrors[0])
		}
	}
	if firstDeps != nil {
		return firstDeps
	}
	return nil
}

// errorLine is a compiler's (or cgo's C compiler's) "file:line[:col]: msg".
var errorLine = regexp.MustCompile(`(?m)^(\S+?\.[A-Za-z]+):(\d+)(?::(\d+))?: (.+)$`)

// posText is go list's "file:line[:col]".
var posText = regexp.MustCompile(`^(.+?):(\d+)(?::(\d+))?$`)

func newError(dir, pkg string, pe *packageError) *Error {
	e := &Error{Dir: dir, Package: pkg, Output: strings.TrimSpace(pe.Err)}
	if len(pe.ImportStack) > 0 {
		e.Package = basePath(pe.ImportStack[len(pe.ImportStack)-1])
	}
	if m := posText.FindStringSubmatch(pe.Pos); m != nil {
		e.File, e.Msg = m[1], firstLine(pe.Err)
		e.Line, _ = strconv.Atoi(m[2])
		e.Col, _ = strconv.Atoi(m[3])
	} else if m := errorLine.FindStringSubmatch(pe.Err); m != nil {
		e.File, e.Msg = m[1], m[4]
		e.Line, _ = strconv.Atoi(m[2])
		e.Col, _ = strconv.Atoi(m[3])
	} else {
		e.Msg = firstLine(strings.TrimPrefix(pe.Err, "# "+pkg+"\n"))
	}
	e.File = relativeTo(dir, e.File)
	return e
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// relativeTo makes name relative to dir when it lies inside it, whether
// named by its path or, as -trimpath names it, by the tree's module path.
func relativeTo(dir, name string) string {
	if name == "" {
		return name
	}
	if !filepath.IsAbs(name) {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			if mod := modfile.ModulePath(data); mod != "" {
				if rel, ok := strings.CutPrefix(name, mod+"/"); ok {
					return rel
				}
			}
		}
		return strings.TrimPrefix(name, "./")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return name
	}
	if rel, err := filepath.Rel(abs, name); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return name
}

// goCommand runs the go command in dir. The tree is checked as its own
// module (GOWORK=off: an upstream fetched from the module proxy lacks the
// nested modules its go.work lists) with cgo on, so the binding's Go code
// is compiled as a build compiles it.
func goCommand(ctx context.Context, dir string, opt Options, args ...string) ([]byte, string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=1")
	cmd.Env = append(cmd.Env, opt.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	return stdout.Bytes(), stderr.String(), err
}

// tailOf is the end of a failed go command's stderr, for its error.
func tailOf(stderr string) string {
	stderr = strings.TrimSpace(stderr)
	if stderr == "" {
		return ""
	}
	if len(stderr) > 2000 {
		stderr = "…" + stderr[len(stderr)-2000:]
	}
	return ":\n" + stderr
}
