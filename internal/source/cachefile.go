package source

import "github.com/epp-build/epp-build/internal/inputfile"

// The files of the cache and the user's configuration are read bounded and
// only as regular files: a FIFO or /dev/zero put in their place is refused
// (an entry is then corrupt and fetched again) instead of hanging the
// command or running it out of memory.
var (
	// entryMetaLimit bounds an entry's metadata: the file list of a tree,
	// a few MB for a large upstream.
	entryMetaLimit = inputfile.Limit{Bytes: 64 << 20, What: "a cache entry's metadata"}
	// cacheNoteLimit bounds the small notes of an entry and the module
	// checksum database's state.
	cacheNoteLimit = inputfile.Limit{Bytes: 16 << 20, What: "a cache file"}
	netrcLimit     = inputfile.Limit{Bytes: 1 << 20, What: "a netrc file"}
)
