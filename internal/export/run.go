package export

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/outdir"

	"github.com/epp-build/epp-build/internal/recipe"
)

// Run exports the tree in dir and, when to is set, writes the series into
// that recipe folder. A recipe that extends another keeps the inherited
// patches where they are.
//
// The tree is read under apply's lock on it (outdir.Lock): an apply into
// dir running at the same time would otherwise let export read half of
// one series and half of another. A re-apply a killed run left half done
// is refused rather than exported. notice (may be nil) is told when the
// lock has to be waited for.
func Run(ctx context.Context, dir, to string, notice func(format string, args ...any)) ([]Patch, error) {
	patches, err := lockedSeries(ctx, dir, notice)
	if err != nil || to == "" {
		return patches, err
	}
	if r, err := recipe.Load(to); err == nil && r.Extends != "" {
		return patches, WriteRecipe(r, patches)
	}
	return patches, Write(to, patches)
}

func lockedSeries(ctx context.Context, dir string, notice func(format string, args ...any)) ([]Patch, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return Series(dir) // it says what is wrong with dir; nothing to lock
	}
	unlock, err := outdir.Lock(ctx, abs, notice)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := os.Lstat(outdir.JournalPath(abs)); err == nil {
		return nil, fmt.Errorf("%s holds a re-apply an interrupted epp-build apply left half done (%s): run that apply again to complete it, then export", dir, outdir.JournalPath(abs))
	}
	return Series(dir)
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
