package source

import (
	"context"
	"errors"
)

// ReadFiles reads the named files of the tree (slash-separated paths)
// straight from the cache entry, without a checkout: a rebase's merge
// bases need a few files of the old pin, and writing all of its thousand
// files to read those few cost as much as the rebase itself. Each file is
// checked against its blob hash as Materialize checks what it copies, so
// a damaged entry is an error wrapping ErrCorrupt (Materialize drops it
// and fetches again). A symlink gives its target; a path the tree does
// not hold as a file or symlink is left out of the map.
func (t *Tree) ReadFiles(ctx context.Context, paths []string) (map[string][]byte, error) {
	if t.entry == nil {
		return nil, errors.New("read files: the tree does not come from source.Fetch")
	}
	unlock, err := t.holdEntry(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	src, err := openBlobSource(t.blobs, nil)
	if err != nil {
		return nil, err
	}
	defer src.close()
	out := make(map[string][]byte, len(paths))
	for _, f := range t.entry.Files {
		if !want[f.Path] || !f.hasContent() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h, err := parseHash(f.Hash)
		if err != nil {
			return nil, corruptf("%s: %v", f.Path, err)
		}
		if out[f.Path], err = src.verified(f, h); err != nil {
			return nil, err
		}
	}
	return out, nil
}
