package capi

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// CheckPrototypes checks that every function the Go binding declares exists
// in the library's header with the same number of parameters. Go and Rust
// disagreed on an arity for several Dynamo releases; this catches it before
// the link (which would not, C symbols carry no signature).
var CheckPrototypes = checkPrototypesBasic

// checkPrototypesBasic is a small declaration scanner: it finds
// `name(params);` declarations and counts top-level commas.
func checkPrototypesBasic(binding, library []byte) error {
	want := prototypes(string(binding))
	have := prototypes(string(library))
	var problems []string
	for name, n := range want {
		got, ok := have[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s is declared by the Go binding but missing from the library header", name))
		case got != n:
			problems = append(problems, fmt.Sprintf("%s takes %d parameter(s) in the library header but %d in the Go binding", name, got, n))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("C API mismatch: %s", strings.Join(problems, "; "))
	}
	return nil
}

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	preproc      = regexp.MustCompile(`(?m)^\s*#.*$`)
	declaration  = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*\(([^()]*)\)\s*;`)
)

func prototypes(src string) map[string]int {
	src = blockComment.ReplaceAllString(src, " ")
	src = lineComment.ReplaceAllString(src, " ")
	src = preproc.ReplaceAllString(src, " ")
	out := map[string]int{}
	for _, m := range declaration.FindAllStringSubmatch(src, -1) {
		params := strings.TrimSpace(m[2])
		switch {
		case params == "" || params == "void":
			out[m[1]] = 0
		default:
			out[m[1]] = strings.Count(params, ",") + 1
		}
	}
	return out
}
