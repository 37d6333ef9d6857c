package export

import (
	"fmt"
	"io"

	"github.com/epp-build/epp-build/internal/recipe"
)

// Run exports the tree in dir and, when to is set, writes the series into
// that recipe folder. A recipe that extends another keeps the inherited
// patches where they are.
func Run(dir, to string) ([]Patch, error) {
	patches, err := Series(dir)
	if err != nil || to == "" {
		return patches, err
	}
	if r, err := recipe.Load(to); err == nil && r.Extends != "" {
		return patches, WriteRecipe(r, patches)
	}
	return patches, Write(to, patches)
}

// WriteRun prints the series itself when it went nowhere else, else where
// it went.
func WriteRun(w io.Writer, patches []Patch, to string) error {
	if to != "" {
		_, err := fmt.Fprintf(w, "exported %d patches to %s\n", len(patches), to)
		return err
	}
	for _, p := range patches {
		if _, err := w.Write(p.Data); err != nil {
			return err
		}
	}
	return nil
}
