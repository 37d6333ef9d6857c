package patchset

import (
	"bytes"
	"compress/zlib"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"
)

// A binary delta that does not apply to the very blob it names is a
// corrupt patch (refused input), not a conflict for a merge to resolve.
func TestCorruptBinaryDeltaIsRefusedInput(t *testing.T) {
	src := []byte("\x00\x01\x02bin")
	delta := []byte{0x06, 0x07, 0xff, 0xff, 0xff} // sizes, then a copy past the source
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, err := w.Write(delta)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	f := &gitdiff.File{OldName: "b.bin", NewName: "b.bin", IsBinary: true,
		OldOIDPrefix: plumbing.ComputeHash(plumbing.BlobObject, src).String(), NewOIDPrefix: plumbing.ComputeHash(plumbing.BlobObject, []byte("other!!")).String(),
		BinaryFragment: &gitdiff.BinaryFragment{Method: gitdiff.BinaryPatchDelta, Size: int64(len(delta)), RawData: z.Bytes()}}
	_, err = applyBinary(&Patch{File: "bin.patch"}, f, src)
	var refused *UnsafeError
	require.ErrorAs(t, err, &refused)
	require.ErrorContains(t, err, "the patch is corrupt")
}
