package apply

import (
	"github.com/epp-build/epp-build/internal/recipe"
)

// Generating loads every version under root whose series is generated in
// part from this repository (a generated list of its own or inherited),
// bases before the versions that extend them, so a regen of all of them
// rewrites a base's patches before its extensions compare against them.
func Generating(root string) ([]*recipe.Recipe, error) {
	versions, err := recipe.Versions(root)
	if err != nil {
		return nil, err
	}
	var out []*recipe.Recipe
	done := map[string]bool{}
	var visit func(r *recipe.Recipe)
	visit = func(r *recipe.Recipe) {
		if r == nil || done[r.Version] {
			return
		}
		visit(r.Base)
		done[r.Version] = true
		if len(r.Generated) > 0 {
			out = append(out, r)
		}
	}
	for _, v := range versions {
		r, err := recipe.LoadVersion(root, v)
		if err != nil {
			return nil, err
		}
		visit(r)
	}
	return out, nil
}
