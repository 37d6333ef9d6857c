package backport

import (
	"fmt"
	"io"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/patchset"
)

// binaryData refuses a pick whose binary change cannot be applied as
// written, before anything is applied: one without data (git diff without
// --binary says only "Binary files differ") or whose data does not inflate
// to the size it declares, or, given whole, is not the blob its index line
// names. Applied, such a change would fail and stop the pick as a conflict
// to resolve, when nothing but a new patch can fix it.
func binaryData(p *patchset.Patch) error {
	for _, f := range p.Files {
		if !f.IsBinary {
			continue
		}
		name := f.NewName
		if f.IsDelete {
			name = f.OldName
		}
		refuse := func(format string, a ...any) error {
			return &patchset.ParseError{Patch: p.Name(), Err: fmt.Errorf("%s: "+format+"; refused", append([]any{name}, a...)...)}
		}
		if f.BinaryFragment == nil {
			return refuse("binary change without data (write the patch with git format-patch --binary --full-index, or git diff --binary --full-index)")
		}
		for _, frag := range []*gitdiff.BinaryFragment{f.BinaryFragment, f.ReverseBinaryFragment} {
			if frag == nil {
				continue
			}
			h := plumbing.NewHasher(plumbing.BlobObject, frag.Size)
			if err := inflated(frag, h); err != nil {
				return refuse("binary data is corrupt: %v", err)
			}
			if frag != f.BinaryFragment || frag.Method != gitdiff.BinaryPatchLiteral || !plumbing.IsHash(f.NewOIDPrefix) {
				continue
			}
			if got, want := h.Sum(), plumbing.NewHash(f.NewOIDPrefix); !want.IsZero() && got != want {
				return refuse("binary data is blob %s, but its index line promises %s: the patch is corrupt or was edited by hand", got, want)
			}
		}
	}
	return nil
}

// inflated writes the fragment's data to w, which must be exactly the
// size the fragment declares; a declared size past the patch limit is
// refused unread, since the data would inflate to it.
func inflated(frag *gitdiff.BinaryFragment, w io.Writer) error {
	if limit := inputfile.PatchLimit().Bytes; frag.Size < 0 || frag.Size > limit {
		return fmt.Errorf("it declares %d bytes, over the %d-byte limit for a patch", frag.Size, limit)
	}
	n, err := io.Copy(w, io.LimitReader(frag.Data(), frag.Size+1))
	if err != nil {
		return err
	}
	if n != frag.Size {
		return fmt.Errorf("it inflates to %d bytes, not the %d it declares", n, frag.Size)
	}
	return nil
}
