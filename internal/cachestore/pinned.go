package cachestore

import (
	"fmt"
	"slices"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
)

// PinnedKeys are the upstream entry keys the recipes under root use (the
// GAIE pin and the C API pin of each), with the versions that pin each.
// A recipe that does not load is an error, not a recipe pinning nothing:
// its entries would be pruned.
func PinnedKeys(root string) (map[string][]string, error) {
	versions, err := recipe.Versions(root)
	if err != nil {
		return nil, err
	}
	pinned := map[string][]string{}
	for _, v := range versions {
		r, err := recipe.LoadVersion(root, v)
		if err != nil {
			return nil, fmt.Errorf("cannot tell what %s pins, so nothing it may pin is pruned: %w", v, err)
		}
		pins := []recipe.Upstream{r.Upstream}
		if r.CAPI != nil {
			pins = append(pins, recipe.Upstream{Repository: r.CAPI.Repository, Commit: r.CAPI.Commit})
		}
		for _, pin := range pins {
			for _, key := range source.EntryKeys(pin) {
				pinned[key] = sortedVersions(append(pinned[key], v))
			}
		}
	}
	return pinned, nil
}

// sortedVersions is a key's versions in a stable order, each once.
func sortedVersions(vs []string) []string {
	slices.Sort(vs)
	return slices.Compact(vs)
}
