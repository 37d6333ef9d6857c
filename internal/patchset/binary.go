package patchset

import (
	"bytes"
	"fmt"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/go-git/go-git/v5/plumbing"
)

// applyBinary applies a `GIT binary patch` the way git apply does: only
// with a full index line, only to the blob the line names, and only when
// the result is the blob it promises. Binary data cannot be checked by
// context lines, so the hashes are the only check there is.
func applyBinary(p *Patch, f *gitdiff.File, src []byte) ([]byte, error) {
	if f.BinaryFragment == nil {
		return nil, &FileError{Patch: p.Name(), File: fileName(f), Reason: "binary change without data (export with --binary)"}
	}
	oldID, okOld := fullHash(f.OldOIDPrefix)
	newID, okNew := fullHash(f.NewOIDPrefix)
	if !okOld || !okNew {
		return nil, &UnsafeError{Patch: p.Name(), Path: fileName(f), Reason: fmt.Sprintf(
			"binary patch without a full index line (index %s..%s); git apply refuses it too: export with --binary --full-index",
			f.OldOIDPrefix, f.NewOIDPrefix)}
	}
	if got := plumbing.ComputeHash(plumbing.BlobObject, src); !f.IsNew && got != oldID {
		return nil, &FileError{Patch: p.Name(), File: fileName(f), Reason: fmt.Sprintf(
			"the binary patch was made against blob %s, but the file is blob %s", oldID, got)}
	}
	if newID.IsZero() {
		return nil, nil // a delete: nothing remains
	}
	var out bytes.Buffer
	if err := gitdiff.Apply(&out, bytes.NewReader(src), f); err != nil {
		// The file is the blob the patch was made against, so the data
		// is at fault: refused input, not a conflict to merge.
		return nil, &UnsafeError{Patch: p.Name(), Path: fileName(f), Reason: fmt.Sprintf(
			"binary patch data does not apply to the blob it was made against (%v): the patch is corrupt", err)}
	}
	if got := plumbing.ComputeHash(plumbing.BlobObject, out.Bytes()); got != newID {
		return nil, &UnsafeError{Patch: p.Name(), Path: fileName(f), Reason: fmt.Sprintf(
			"binary patch creates blob %s, but its index line promises %s: the patch is corrupt or was edited by hand (git apply refuses it too)",
			got, newID)}
	}
	return out.Bytes(), nil
}

// fullHash parses a complete SHA-1 object id.
func fullHash(s string) (plumbing.Hash, bool) {
	if !plumbing.IsHash(s) {
		return plumbing.ZeroHash, false
	}
	return plumbing.NewHash(s), true
}
