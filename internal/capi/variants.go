package capi

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/epp-build/epp-build/internal/cheader"
)

// A binding declares the shapes a part of its C API generation takes in
// different libraries (a variant axis) as variant_<axis>-<value>.h next to
// its main header, one fragment per known shape, and compiles the Go code
// of each only under the build tag <axis>_<value>. Exactly one variant of
// each axis is enabled: the one the library declares. A variant matches
// when the library's header declares every function of its fragment with
// the same types and every struct with the same layout, and the archive
// defines those functions. Where several match (a fragment that declares
// nothing always does; a library may have an old function beside its
// successor), the one that declares the most wins: it uses the most of
// what the library has. A library that matches none, or that declares a
// function of the axis with a prototype no variant knows, is refused.
var variantHeader = regexp.MustCompile(`^variant_([a-z0-9_]+)-([a-z0-9]+)\.h$`)

// UnknownVariantError is a library that matches no known variant of an
// axis. It unwraps to the *cheader.MismatchError of the first difference
// from each variant, so it is an ABI mismatch to callers (exit 5).
type UnknownVariantError struct {
	Axis     string
	Platform string
	Header   string
	// Problems are the differences, per variant, in the variants' order.
	Problems []string
}

func (e *UnknownVariantError) Error() string {
	return fmt.Sprintf("the %s library header %s matches no known variant of %s:\n  %s",
		e.Platform, e.Header, e.Axis, strings.Join(e.Problems, "\n  "))
}

func (e *UnknownVariantError) Unwrap() error { return &cheader.MismatchError{Problems: e.Problems} }

// variant is one fragment of an axis.
type variant struct {
	axis, value, file string
	// decls holds only what the fragment declares, with the aliases of the
	// main header and the fragment (for canonical types).
	decls *cheader.Header
	// weight orders matches: functions, then parameters and fields.
	functions, size int
}

func (v variant) tag() string { return v.axis + "_" + v.value }

// readVariants reads the binding's variant fragments, grouped by axis in
// name order; the variants of an axis are in file-name order.
func readVariants(bindingDir string, base []byte) (map[string][]variant, error) {
	entries, err := os.ReadDir(bindingDir)
	if err != nil {
		return nil, fmt.Errorf("C API variants: %w", err)
	}
	out := map[string][]variant{}
	for _, e := range entries {
		m := variantHeader.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		src, err := os.ReadFile(filepath.Join(bindingDir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("C API variant %s: %w", e.Name(), err)
		}
		own, err := cheader.ParseHeader(src)
		if err != nil {
			return nil, fmt.Errorf("C API variant header %s: %w", e.Name(), err)
		}
		// The fragment uses the main header's types.
		decls, err := cheader.ParseHeader(append(append(append([]byte(nil), base...), '\n'), src...))
		if err != nil {
			return nil, fmt.Errorf("C API variant header %s: %w", e.Name(), err)
		}
		v := variant{axis: m[1], value: m[2], file: e.Name(), decls: decls, functions: len(own.Functions)}
		for name := range decls.Functions {
			if _, ok := own.Functions[name]; !ok {
				delete(decls.Functions, name)
				continue
			}
			v.size += len(decls.Functions[name].Params)
		}
		for name := range decls.Structs {
			if _, ok := own.Structs[name]; !ok {
				delete(decls.Structs, name)
				continue
			}
			v.size += len(decls.Structs[name].Fields)
		}
		out[v.axis] = append(out[v.axis], v)
	}
	return out, nil
}

// detectVariants decides every axis of the binding against every library:
// one Feature per variant, exactly one enabled per axis.
func detectVariants(libs []Library, bindingDir string, base []byte) ([]Feature, error) {
	axes, err := readVariants(bindingDir, base)
	if err != nil {
		return nil, err
	}
	var out []Feature
	for _, axis := range sortedKeys((axes)) {
		variants := axes[axis]
		chosen := ""
		for _, l := range libs {
			v, err := chooseVariant(l, variants)
			if err != nil {
				return nil, err
			}
			if chosen != "" && chosen != v.value {
				return nil, fmt.Errorf("C API variant %s: the libraries disagree (%s has %s, another %s); build the platforms from one source",
					axis, l.Platform, v.value, chosen)
			}
			chosen = v.value
		}
		for _, v := range variants {
			f := Feature{Tag: v.tag(), Axis: axis, Variant: v.value, Enabled: v.value == chosen, Header: v.file}
			f.Functions = sortedKeys((v.decls.Functions))
			f.Structs = sortedKeys((v.decls.Structs))
			out = append(out, f)
		}
	}
	return out, nil
}

// chooseVariant picks the variant of one axis the library declares.
func chooseVariant(l Library, variants []variant) (variant, error) {
	lib, err := cheader.ParseHeader(l.Header)
	if err != nil {
		return variant{}, fmt.Errorf("library header %s for %s: %w", l.HeaderName, l.Platform, err)
	}
	var defined map[string]bool
	if l.Symbols != nil {
		if defined, err = l.Symbols(); err != nil {
			return variant{}, err
		}
	}
	var matches []variant
	var problems []string
	for _, v := range variants {
		if err := cheader.Check(v.decls, lib); err != nil {
			problems = append(problems, fmt.Sprintf("%s (%s): %s", v.value, v.file, firstProblem(err)))
			continue
		}
		if missing := undefined(v, defined); len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("%s (%s): the archive does not define %s", v.value, v.file, strings.Join(missing, ", ")))
			continue
		}
		matches = append(matches, v)
	}
	axis := variants[0].axis
	if unknown := unknownDeclarations(lib, variants); len(unknown) > 0 {
		return variant{}, &UnknownVariantError{Axis: axis, Platform: l.Platform, Header: l.HeaderName, Problems: unknown}
	}
	if len(matches) == 0 {
		return variant{}, &UnknownVariantError{Axis: axis, Platform: l.Platform, Header: l.HeaderName, Problems: problems}
	}
	return slices.MaxFunc(matches, func(a, b variant) int {
		return cmp.Or(cmp.Compare(a.functions, b.functions), cmp.Compare(a.size, b.size))
	}), nil
}

// unknownDeclarations lists the axis's functions and structs the library
// declares in a shape no variant knows, each with its difference from
// every variant that declares it.
func unknownDeclarations(lib *cheader.Header, variants []variant) []string {
	type shape struct {
		v   variant
		one *cheader.Header
	}
	byName := map[string][]shape{}
	for _, v := range variants {
		for name, p := range v.decls.Functions {
			one := v.decls.Only(map[string]cheader.Prototype{name: p}, nil)
			byName[name] = append(byName[name], shape{v, one})
		}
		for name, s := range v.decls.Structs {
			one := v.decls.Only(nil, map[string]cheader.Struct{name: s})
			byName["struct "+name] = append(byName["struct "+name], shape{v, one})
		}
	}
	var out []string
	for _, name := range sortedKeys((byName)) {
		_, fn := lib.Functions[name]
		_, st := lib.Structs[strings.TrimPrefix(name, "struct ")]
		if !fn && !st {
			continue // not declared: the variants without it decide
		}
		var diffs []string
		known := false
		for _, s := range byName[name] {
			err := cheader.Check(s.one, lib)
			if err == nil {
				known = true
				break
			}
			diffs = append(diffs, fmt.Sprintf("variant %s has %s", s.v.value, firstProblem(err)))
		}
		if !known {
			out = append(out, fmt.Sprintf("%s: the library declares it as no known variant does (%s)", name, strings.Join(diffs, "; ")))
		}
	}
	return out
}

// firstProblem is the first difference a check found.
func firstProblem(err error) string {
	if m, ok := err.(*cheader.MismatchError); ok && len(m.Problems) > 0 {
		return m.Problems[0]
	}
	return err.Error()
}

// undefined lists the variant's functions the archive does not define
// (nil when the archive's symbols are not known).
func undefined(v variant, defined map[string]bool) []string {
	if defined == nil {
		return nil
	}
	var missing []string
	for name := range v.decls.Functions {
		if !defined[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	return missing
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
