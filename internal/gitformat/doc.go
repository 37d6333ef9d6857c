// Package gitformat reads and writes the git formats more than one stage
// builds by hand: the index file and tree objects. go-git reads and writes
// the index field by field through reflection, which was the largest
// single cost of a re-apply in place; this does it in one pass, byte for
// byte as go-git does. It also holds the one abbreviation of a commit or
// digest (Short) that every message shows.
package gitformat
