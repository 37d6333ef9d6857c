package patchset

import "github.com/epp-build/epp-build/internal/recipe"

// Series is a patch series parsed and checked: no hostile path or mode
// in any patch. Only loading makes one (LoadSeries from a recipe's files,
// NewSeries for patches parsed elsewhere), and every apply takes one, so
// a series is checked once, where it is read, and never applied unchecked.
type Series struct {
	patches []*Patch
}

// LoadSeries parses and checks every patch of the recipe before anything
// is written.
func LoadSeries(r *recipe.Recipe) (*Series, error) {
	var all []*Patch
	for _, sp := range r.Series {
		ps, err := ParseFile(sp.Path, sp.Name)
		if err != nil {
			return nil, err
		}
		all = append(all, ps...)
	}
	return NewSeries(all)
}

// NewSeries checks patches parsed elsewhere (a pick, a C API pin's
// patches, a series regenerated in memory) and makes them a series.
func NewSeries(patches []*Patch) (*Series, error) {
	if err := check(patches); err != nil {
		return nil, err
	}
	return &Series{patches: patches}, nil
}

// Patches are the series' patches in order; the slice is the caller's.
func (s *Series) Patches() []*Patch {
	if s == nil {
		return nil
	}
	return append([]*Patch(nil), s.patches...)
}

// Len is the number of patches.
func (s *Series) Len() int {
	if s == nil {
		return 0
	}
	return len(s.patches)
}

// list is the patches for the package's own reading, not copied.
func (s *Series) list() []*Patch {
	if s == nil {
		return nil
	}
	return s.patches
}
