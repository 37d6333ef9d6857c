package export

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/epp-build/epp-build/internal/atomicfile"

	"github.com/epp-build/epp-build/internal/filetree"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/recipe"
)

// WriteRecipe stores the exported series in r's folder. The patches a
// recipe inherits stay where they are: they must come first and unchanged
// (export them to the base recipe instead).
func WriteRecipe(r *recipe.Recipe, patches []Patch) error {
	n := r.Inherited()
	for i, sp := range r.Series[:n] {
		if i >= len(patches) || patches[i].Name != sp.Name {
			return fmt.Errorf("the first %d patches of %s come from %s and must stay as they are; change them there", n, r.Version, r.Base.Version)
		}
		committed, err := readPatch(sp.Path)
		var refused *inputfile.Error
		if errors.As(err, &refused) {
			return fmt.Errorf("patch %s of %s: %w", sp.Name, r.Base.Version, err)
		}
		if err != nil || !bytes.Equal(committed, patches[i].Data) {
			return fmt.Errorf("patch %s of %s changed; write it to %s instead", sp.Name, r.Base.Version, filepath.Dir(sp.Path))
		}
	}
	return Write(r.Dir, patches[n:])
}

// Write stores the series in the recipe folder dir: every patch file,
// the recipe's patches list in order, and no stale *.patch files.
func Write(dir string, patches []Patch) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	keep := map[string]bool{}
	names := make([]string, 0, len(patches))
	for _, p := range patches {
		path := filepath.Join(dir, p.Name)
		// Whatever is in the way (a FIFO, a link to a device) is replaced
		// by the exported file rather than read.
		if old, err := readPatch(path); err != nil || !bytes.Equal(old, p.Data) {
			if err := atomicfile.Write(path, p.Data, 0o644); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
		}
		keep[p.Name] = true
		names = append(names, p.Name)
	}
	stale, err := filetree.Glob(dir, "*.patch")
	if err != nil {
		return err
	}
	for _, s := range stale {
		if !keep[filepath.Base(s)] {
			if err := os.Remove(s); err != nil {
				return err
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, recipe.FileName)); err == nil {
		return recipe.SetPatches(dir, names)
	}
	return nil
}

// readPatch reads a committed patch file only if it is a regular file of
// its recipe folder within the patch limit.
func readPatch(path string) ([]byte, error) {
	return inputfile.ReadFile(path, filepath.Dir(path), inputfile.PatchLimit())
}

// Stale is a difference between the committed series and what export
// produces.
type Stale struct {
	Patch  string
	Reason string
}

func (s Stale) String() string { return s.Patch + ": " + s.Reason }

// Compare lists every way the recipe's committed series differs from
// patches: changed bytes, missing or extra files, a different order.
func Compare(r *recipe.Recipe, patches []Patch) []Stale {
	var out []Stale
	produced := map[string]bool{}
	listed := map[string]string{}
	for _, sp := range r.Series {
		listed[sp.Name] = sp.Path
	}
	for i, p := range patches {
		produced[p.Name] = true
		path := listed[p.Name]
		if path == "" {
			path = filepath.Join(r.Dir, p.Name)
		}
		committed, err := readPatch(path)
		var refused *inputfile.Error
		switch {
		case errors.As(err, &refused):
			out = append(out, Stale{p.Name, err.Error()})
		case err != nil:
			out = append(out, Stale{p.Name, "export produces it but it is not committed"})
		case !bytes.Equal(committed, p.Data):
			out = append(out, Stale{p.Name, "committed file differs from what export produces (" + firstDifference(committed, p.Data) + ")"})
		case i >= len(r.Series) || r.Series[i].Name != p.Name:
			out = append(out, Stale{p.Name, fmt.Sprintf("is patch %d of the exported series but listed elsewhere in %s", i+1, recipe.FileName)})
		}
	}
	for _, sp := range r.Series {
		if !produced[sp.Name] {
			out = append(out, Stale{sp.Name, "committed but export no longer produces it"})
		}
	}
	return out
}

// firstDifference names the first line where two patch files differ.
func firstDifference(a, b []byte) string {
	al, bl := strings.SplitAfter(string(a), "\n"), strings.SplitAfter(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: committed %q, export %q", i+1, strings.TrimSuffix(x, "\n"), strings.TrimSuffix(y, "\n"))
		}
	}
	return "same lines"
}
