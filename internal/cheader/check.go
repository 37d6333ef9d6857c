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

// Check verifies that every prototype of binding exists in library with
// the same number of parameters. It reports all problems at once, sorted
// by function name, as a *MismatchError. Functions the library has and the
// binding does not use are fine.
func Check(binding, library map[string]Prototype) error {
	names := make([]string, 0, len(binding))
	for name := range binding {
		names = append(names, name)
	}
	sort.Strings(names)

	var problems []string
	for _, name := range names {
		want := binding[name]
		have, ok := library[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: declared by the binding but missing from the library header", name))
		case len(want.Params) != len(have.Params):
			problems = append(problems, fmt.Sprintf("%s: binding declares %s, library header has %d",
				name, plural(len(want.Params), "parameter"), len(have.Params)))
		}
	}
	if len(problems) > 0 {
		return &MismatchError{Problems: problems}
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
