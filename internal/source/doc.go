// Package source fetches the upstream tree a recipe pins, verifies that it is
// exactly the pinned commit, keeps it in a content-addressed cache and turns
// it into a git work tree for the patch stage.
//
// Three sources produce the same kind of cache entry: a shallow git fetch of
// the pinned ref (Git), the Go module proxy's zip of the pinned module version
// (GoProxy) and a local repository (Path). Auto tries git and falls back to the
// module proxy when git cannot be reached.
//
// A cache entry is a folder CacheDir/upstream/<key>/ holding entry.json (what
// the entry is, including the list of files with their blob hashes), git/ (a
// bare repository with one pack of the commit, its trees and blobs), files/
// (the checked-out files) and files.stat (their stat data as written). The
// list of files is checked against the commit by rebuilding the tree hashes
// from it, so the warm path never inflates objects; a file whose stat data is
// unchanged is copied in the kernel, any other is hashed (statcache.go).
package source
