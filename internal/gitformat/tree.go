package gitformat

import (
	"crypto/sha1"
	"strconv"
)

// AppendTreeEntry appends one entry of a tree object to body: the mode in
// octal, a space, the name, a NUL and the raw object id. Entries must be
// appended in git's order (by name, a folder's name compared as if it
// ended in "/").
func AppendTreeEntry(body []byte, mode uint32, name string, id [20]byte) []byte {
	body = strconv.AppendUint(body, uint64(mode), 8)
	body = append(body, ' ')
	body = append(body, name...)
	body = append(body, 0)
	return append(body, id[:]...)
}

// ObjectID is git's object id: the SHA-1 of "<kind> <size>\0<content>".
// It uses crypto/sha1, not go-git's collision-detecting SHA-1: it checks
// content against ids that are already established (a fetch indexes its
// pack with collision detection) or compares two ids of the same
// repository; it never vouches for new content on its own.
func ObjectID(kind string, content []byte) [20]byte {
	d := sha1.New()
	d.Write([]byte(kind + " " + strconv.Itoa(len(content)) + "\x00"))
	d.Write(content)
	var id [20]byte
	d.Sum(id[:0])
	return id
}
