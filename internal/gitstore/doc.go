// Package gitstore writes what a git repository keeps on disk for apply:
// objects as one pack, refs, the index file.
//
// Both the source stage (the commit of a cache entry) and the patch stage
// (the objects a series makes) store objects through WritePack, whole and
// uncompressed: the pack is written once, read rarely, and git
// recompresses it when it repacks.
package gitstore
