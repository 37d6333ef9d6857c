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
// the entry is, including the list of files with their blob hashes and where
// each one's content lies in the blob store), git/ (a bare repository with
// one pack of the commit, its trees and blobs), blobs (the contents of the
// commit's files, each distinct blob once, uncompressed) and blobs.stat (the
// store's stat data as written). The list of files is checked against the
// commit by rebuilding the tree hashes from it, so the warm path never
// inflates objects; while the store's stat data is unchanged each file's
// range is copied in the kernel, otherwise every range is hashed
// (statcache.go).
//
// Beside the entries, CacheDir/upstream/history-<key>/ is the history of
// one upstream repository (commits and trees, for log, diff-series and
// rebase): a bare git dir fetched into by the same upload-pack client as
// the entries and under the same per-key locks (history.go).
//
// Keeping the contents in one file rather than a folder of files means the
// tree is created once, in the work tree: on ext4 creating a file (finding
// a free inode, locking its folder) costs far more than writing its bytes.
package source
