// Command testtier prints the arguments of `go test` for one tier of the
// test suite: -run with exactly the tests of that tier, then the packages
// that have any. A tier is a build tag (integration or e2e) whose files add
// tests to the default set; building with the tag compiles the default
// tests too, so without the -run pattern a tagged run would repeat the
// unit tier. It refuses, naming them, a test that two tiers would both run
// and a tier test whose name another listed package also uses untagged.
//
//	go test -tags integration $(go run ./tools/testtier integration ./...)
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tiers are the tagged tiers, each built with its own tag alone.
var tiers = []string{"integration", "e2e"}

func main() {
	gocmd := flag.String("go", "go", "the go command that lists the packages")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: testtier [-go go] %s [packages]\n", strings.Join(tiers, "|"))
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 || !slices.Contains(tiers, flag.Arg(0)) {
		flag.Usage()
		os.Exit(2)
	}
	patterns := flag.Args()[1:]
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	args, err := tierArgs(*gocmd, flag.Arg(0), patterns)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtier:", err)
		os.Exit(1)
	}
	fmt.Println(strings.Join(args, " "))
}

// pkg is what go list says of one package under one set of tags.
type pkg struct {
	ImportPath   string
	Dir          string
	TestGoFiles  []string
	XTestGoFiles []string
}

func (p pkg) files() []string {
	return append(slices.Clone(p.TestGoFiles), p.XTestGoFiles...)
}

// tierArgs returns -run and its pattern followed by the packages, in the
// order go list names them, that have tests in tier.
func tierArgs(gocmd, tier string, patterns []string) ([]string, error) {
	base, err := list(gocmd, "", patterns)
	if err != nil {
		return nil, err
	}
	sets := map[string]map[string][]string{} // tier -> package -> tests
	var order []string
	for _, t := range tiers {
		tagged, err := listOrdered(gocmd, t, patterns)
		if err != nil {
			return nil, err
		}
		sets[t] = map[string][]string{}
		for _, p := range tagged {
			names, err := testsOf(p.Dir, without(p.files(), base[p.ImportPath].files()))
			if err != nil {
				return nil, err
			}
			if len(names) > 0 {
				sets[t][p.ImportPath] = names
				if t == tier {
					order = append(order, p.ImportPath)
				}
			}
		}
	}
	var problems []string
	for path, names := range sets[tiers[0]] {
		for _, n := range names {
			if slices.Contains(sets[tiers[1]][path], n) {
				problems = append(problems, fmt.Sprintf("%s: %s is in the %s and the %s tier (a file under both tags?)", path, n, tiers[0], tiers[1]))
			}
		}
	}
	// One pattern serves every package, so a name of this tier must not
	// name an untagged test of another listed package.
	all := map[string]bool{}
	for _, path := range order {
		for _, n := range sets[tier][path] {
			all[n] = true
		}
	}
	for _, path := range order {
		p := base[path]
		untagged, err := testsOf(p.Dir, p.files())
		if err != nil {
			return nil, err
		}
		for _, n := range untagged {
			if all[n] {
				problems = append(problems, fmt.Sprintf("%s: untagged test %s shares its name with a %s test, so the %s run would run it again: rename one", path, n, tier, tier))
			}
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("no package of %s has %s tests", strings.Join(patterns, " "), tier)
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	slices.Sort(names)
	return append([]string{"-run", "^(" + strings.Join(names, "|") + ")$"}, order...), nil
}

// list runs go list with tags (none when empty) and returns the packages
// by import path.
func list(gocmd, tags string, patterns []string) (map[string]pkg, error) {
	ps, err := listOrdered(gocmd, tags, patterns)
	if err != nil {
		return nil, err
	}
	m := map[string]pkg{}
	for _, p := range ps {
		m[p.ImportPath] = p
	}
	return m, nil
}

// listOrdered is list keeping the order go list prints, which is the
// order of the patterns: go test starts packages in that order.
func listOrdered(gocmd, tags string, patterns []string) ([]pkg, error) {
	args := []string{"list", "-e", "-json=ImportPath,Dir,TestGoFiles,XTestGoFiles"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command(gocmd, append(args, patterns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	var ps []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return ps, nil
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %w", err)
		}
		ps = append(ps, p)
	}
}

func without(files, drop []string) []string {
	var keep []string
	for _, f := range files {
		if !slices.Contains(drop, f) {
			keep = append(keep, f)
		}
	}
	return keep
}

// testsOf returns the tests, fuzz targets and examples that go test runs
// from files (TestMain is none of them), sorted.
func testsOf(dir string, files []string) ([]string, error) {
	fset := token.NewFileSet()
	var names []string
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("reading the tests of %s: %w", filepath.Join(dir, name), err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Name.Name == "TestMain" {
				continue
			}
			for _, prefix := range []string{"Test", "Fuzz", "Example"} {
				if isTest(fn.Name.Name, prefix) {
					names = append(names, fn.Name.Name)
				}
			}
		}
	}
	slices.Sort(names)
	return names, nil
}

// isTest is go test's rule: the prefix, then nothing or not a lower-case
// letter (TestAbc and Test_x are tests, Testabc is not).
func isTest(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}
