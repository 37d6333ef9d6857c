package gitformat

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTreeIDIsGoGits: a tree built with AppendTreeEntry and hashed with
// ObjectID has the id go-git gives the same entries, for every mode.
func TestTreeIDIsGoGits(t *testing.T) {
	h := plumbing.NewHash("3b18e512dba79e4c8300dd08aeb37f8e728b8dad")
	for _, entries := range [][]object.TreeEntry{
		nil,
		{{Name: "a.go", Mode: filemode.Regular, Hash: h}},
		// git's order: "a.b" before the folder "a", compared as "a/".
		{{Name: "a.b", Mode: filemode.Executable, Hash: h}, {Name: "a", Mode: filemode.Dir, Hash: h},
			{Name: "link", Mode: filemode.Symlink, Hash: h}, {Name: "sub", Mode: filemode.Submodule, Hash: h}},
	} {
		var body []byte
		for _, e := range entries {
			body = AppendTreeEntry(body, uint32(e.Mode), e.Name, e.Hash)
		}
		obj := &plumbing.MemoryObject{}
		require.NoError(t, (&object.Tree{Entries: entries}).Encode(obj))
		assert.Equal(t, [20]byte(obj.Hash()), ObjectID("tree", body))
	}
}

// TestObjectIDOfABlob matches `git hash-object` of "hello\n".
func TestObjectIDOfABlob(t *testing.T) {
	id := ObjectID("blob", []byte("hello\n"))
	assert.Equal(t, "ce013625030ba8dba906f756967f9e9ca394464a", plumbing.Hash(id).String())
}
