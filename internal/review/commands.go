package review

import (
	"fmt"
	"io"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/recipe"
)

// DiffVersions compares the series of versions a and b under root.
func DiffVersions(root, a, b string) ([]Change, error) {
	var sides [2][]Entry
	for i, v := range []string{a, b} {
		r, err := recipe.LoadVersion(root, v)
		if err != nil {
			return nil, err
		}
		if sides[i], err = Log(r); err != nil {
			return nil, err
		}
	}
	return DiffSeries(sides[0], sides[1]), nil
}

// WriteLint prints one problem a line, then that there are no problems
// when every finding is a notice. Notices are not the result: see
// Notices.
func WriteLint(w io.Writer, problems []Problem) error {
	for _, p := range problems {
		if !p.Notice {
			fmt.Fprintln(w, p.String())
		}
	}
	if Failures(problems) == 0 {
		fmt.Fprintln(w, "no problems")
	}
	return nil
}

// Notices are lint's notices, for stderr: one line each, the rest of the
// text behind -v.
func Notices(problems []Problem) []outfmt.Notice {
	var out []outfmt.Notice
	for _, p := range problems {
		if !p.Notice {
			continue
		}
		line := p.Version + ": " + p.Message
		if p.Patch != "" {
			line = p.Version + ": " + p.Patch + ": " + p.Message
		}
		out = append(out, outfmt.Notice{Line: line, Detail: p.Detail})
	}
	return out
}
