package cheader

import (
	"fmt"
	"sort"
	"strings"
)

// MismatchError lists every way a binding disagrees with a library header.
type MismatchError struct {
	Problems []string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("C binding does not match the library header (%d problem(s)); fix the binding's header "+
		"or regenerate the library header:\n  %s", len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// Check verifies that every function the binding declares exists in the
// library with the same return type and parameter types (names may
// differ), and that every struct the binding defines has the library's
// layout: the same fields, in the same order, with the same types. Types
// are compared after resolving each header's aliases (see Canonical), so
// cbindgen's C and C++ spellings of one ABI agree. All problems are
// reported at once, sorted, as a *MismatchError. What the library has and
// the binding does not use is fine.
func Check(binding, library *Header) error {
	var problems []string
	for _, name := range sortedKeys(binding.Functions) {
		want := binding.Functions[name]
		have, ok := library.Functions[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: declared by the binding but missing from the library header", name))
			continue
		}
		problems = append(problems, comparePrototypes(binding, library, want, have)...)
	}
	for _, name := range sortedKeys(binding.Structs) {
		want := binding.Structs[name]
		have, ok := library.Structs[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("struct %s: defined by the binding but not by the library header", name))
			continue
		}
		problems = append(problems, compareStructs(binding, library, want, have)...)
	}
	if len(problems) > 0 {
		return &MismatchError{Problems: problems}
	}
	return nil
}

func comparePrototypes(bh, lh *Header, want, have Prototype) []string {
	name := want.Name
	if len(want.Params) != len(have.Params) {
		return []string{fmt.Sprintf("%s: binding declares %s, library header has %d",
			name, plural(len(want.Params), "parameter"), len(have.Params))}
	}
	var problems []string
	if w, h := bh.Canonical(want.Return), lh.Canonical(have.Return); w != h {
		problems = append(problems, fmt.Sprintf("%s: returns %s in the binding, %s in the library header (%q vs %q)",
			name, w, h, want.Return, have.Return))
	}
	for i := range want.Params {
		wt, wn := splitDeclarator(want.Params[i])
		ht, _ := splitDeclarator(have.Params[i])
		if w, h := bh.Canonical(wt), lh.Canonical(ht); w != h {
			problems = append(problems, fmt.Sprintf("%s: parameter %d (%s) is %s in the binding, %s in the library header (%q vs %q)",
				name, i+1, orDash(wn), w, h, want.Params[i], have.Params[i]))
		}
	}
	return problems
}

func compareStructs(bh, lh *Header, want, have Struct) []string {
	var problems []string
	for i := 0; i < max(len(want.Fields), len(have.Fields)); i++ {
		switch {
		case i >= len(have.Fields):
			problems = append(problems, fmt.Sprintf("struct %s: field %d %s is in the binding but not in the library header",
				want.Name, i+1, want.Fields[i].Name))
		case i >= len(want.Fields):
			problems = append(problems, fmt.Sprintf("struct %s: field %d %s is in the library header but not in the binding",
				want.Name, i+1, have.Fields[i].Name))
		default:
			w, h := want.Fields[i], have.Fields[i]
			wt, ht := bh.Canonical(w.Type), lh.Canonical(h.Type)
			if w.Name != h.Name || wt != ht {
				problems = append(problems, fmt.Sprintf("struct %s: field %d is %s %s in the binding, %s %s in the library header",
					want.Name, i+1, wt, w.Name, ht, h.Name))
			}
		}
	}
	return problems
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func orDash(s string) string {
	if s == "" {
		return "unnamed"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
