package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// RemoveLeftovers deletes the temporary files Inspect found in the work
// tree dir (LocalChanges.Leftovers) and returns how many it deleted. A
// folder left empty is removed too, as the delete of a file the re-apply
// made there would have removed it but for the leftover beside it. The
// caller must hold dir's lock (outdir.Lock): the temporary file of a live
// run is no leftover.
func RemoveLeftovers(dir string, l *LocalChanges) (int, error) {
	n := 0
	for _, p := range l.Leftovers {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.Remove(full); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return n, fmt.Errorf("remove %s, which an interrupted apply left: %w", full, err)
		}
		n++
		for d := filepath.Dir(full); len(d) > len(dir); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break // not empty: the tree's, or the user's
			}
		}
	}
	l.Leftovers = nil
	return n, nil
}
