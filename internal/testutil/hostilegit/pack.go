// Package hostilegit makes what a hostile or broken git server sends:
// packs whose headers lie, deltas that copy a few bytes into gigabytes,
// trees with names and modes git refuses, and an upload-pack server that
// serves them (or never stops sending).
package hostilegit

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// Object types as a pack numbers them; 5 is reserved.
const (
	Commit   = 1
	Tree     = 2
	Blob     = 3
	Tag      = 4
	Reserved = 5
	RefDelta = 7
)

// Object is one entry of a hand-made pack: its type, the size its header
// declares (whatever Data's length) and its data, deflated as it is.
type Object struct {
	Type int
	Size int64
	Data []byte
	// Base is a ref delta's base id.
	Base [20]byte
	// Padding is how many empty deflate blocks follow the data: 5 bytes
	// each on the wire that inflate to nothing.
	Padding int
}

// Honest is an object of typ whose header declares its true size.
func Honest(typ int, data []byte) Object {
	return Object{Type: typ, Size: int64(len(data)), Data: data}
}

// Pack is a version 2 pack of objs, with its checksum.
func Pack(objs ...Object) []byte {
	return PackDeclaring(uint32(len(objs)), objs...)
}

// PackDeclaring is Pack whose header claims count objects.
func PackDeclaring(count uint32, objs ...Object) []byte {
	var b bytes.Buffer
	b.WriteString("PACK")
	binary.Write(&b, binary.BigEndian, uint32(2))
	binary.Write(&b, binary.BigEndian, count)
	z := zlib.NewWriter(&b)
	for _, o := range objs {
		b.Write(ObjectHeader(o.Type, o.Size))
		if o.Type == RefDelta {
			b.Write(o.Base[:])
		}
		z.Reset(&b)
		z.Write(o.Data)
		for range o.Padding {
			z.Flush()
		}
		z.Close()
	}
	sum := sha1.Sum(b.Bytes())
	return append(b.Bytes(), sum[:]...)
}

// ObjectHeader is an entry's header: the type and the size's low 4 bits,
// then the size 7 bits a byte.
func ObjectHeader(typ int, size int64) []byte {
	first := byte(typ<<4) | byte(size&0x0f)
	rest := uint64(size) >> 4
	if rest > 0 {
		first |= 0x80
	}
	out := []byte{first}
	for rest > 0 {
		c := byte(rest & 0x7f)
		rest >>= 7
		if rest > 0 {
			c |= 0x80
		}
		out = append(out, c)
	}
	return out
}

// ID is git's id of an object of kind ("commit", "tree", "blob").
func ID(kind string, data []byte) [20]byte {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(data))
	h.Write(data)
	var id [20]byte
	copy(id[:], h.Sum(nil))
	return id
}

// Hex is id in hex.
func Hex(id [20]byte) string { return hex.EncodeToString(id[:]) }

// CommitOf is a parentless commit's data for tree.
func CommitOf(tree [20]byte) []byte {
	return []byte("tree " + Hex(tree) + "\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\nhostile\n")
}

// Entry is one tree entry: its mode as git writes it ("100644", "40000"),
// its name and its object.
type Entry struct {
	Mode, Name string
	ID         [20]byte
}

// TreeOf is a tree's data, entries in the order given (git's order is
// the caller's to keep).
func TreeOf(entries ...Entry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		b.WriteString(e.Mode + " " + e.Name + "\x00")
		b.Write(e.ID[:])
	}
	return b.Bytes()
}

// DeltaOf is a delta's data: the base's size, the result's size, then
// copies commands, each copying the base's first copyLen bytes (copyLen at
// most 0xffff): a result of copies*copyLen bytes from 3 bytes a copy.
func DeltaOf(baseSize uint64, copies int, copyLen int) []byte {
	var b bytes.Buffer
	b.Write(varint(baseSize))
	b.Write(varint(uint64(copies) * uint64(copyLen)))
	for range copies {
		// Copy from offset 0 (no offset bytes), size in two bytes.
		b.Write([]byte{0x80 | 0x10 | 0x20, byte(copyLen), byte(copyLen >> 8)})
	}
	return b.Bytes()
}

func varint(n uint64) []byte {
	var out []byte
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			return append(out, c)
		}
		out = append(out, c|0x80)
	}
}

// Repo is a minimal honest repository as pack objects: a commit whose
// tree holds entries, plus the objects they name.
type Repo struct {
	Commit [20]byte
	Tree   [20]byte
	// Objects are the commit and then the others.
	Objects []Object
}

// NewRepo is the commit of a tree of entries, packed with extra objects
// (the entries' blobs and subtrees, or anything else).
func NewRepo(entries []Entry, extra ...Object) Repo {
	tree := TreeOf(entries...)
	return RepoOfTree(ID("tree", tree), append([]Object{Honest(Tree, tree)}, extra...)...)
}

// RepoOfTree is the commit of the tree tree, packed with objs.
func RepoOfTree(tree [20]byte, objs ...Object) Repo {
	commit := CommitOf(tree)
	return Repo{Commit: ID("commit", commit), Tree: tree, Objects: append([]Object{Honest(Commit, commit)}, objs...)}
}

// FileEntry is a blob entry and its object.
func FileEntry(mode, name, content string) (Entry, Object) {
	data := []byte(content)
	return Entry{Mode: mode, Name: name, ID: ID("blob", data)}, Honest(Blob, data)
}

// DeepTree is a tree depth folders deep ("d/d/.../d/f"), each folder's
// tree an honest object: the root's id and every tree and the file's blob.
func DeepTree(depth int) ([20]byte, []Object) {
	file, blob := FileEntry("100644", "f", "deep\n")
	objs := []Object{blob}
	tree := TreeOf(file)
	for i := 0; i < depth; i++ {
		objs = append(objs, Honest(Tree, tree))
		tree = TreeOf(Entry{Mode: "40000", Name: "d", ID: ID("tree", tree)})
	}
	objs = append(objs, Honest(Tree, tree))
	return ID("tree", tree), objs
}

// PktLine is data framed as one pkt-line.
func PktLine(data string) string { return fmt.Sprintf("%04x%s", len(data)+4, data) }

// Shallow is n shallow lines naming commit.
func Shallow(n int, commit [20]byte) string {
	return strings.Repeat(PktLine("shallow "+Hex(commit)+"\n"), n)
}
