package source

// copyRange copies size bytes at off in the descriptor in to the start of
// out. macOS has no copy_file_range, and clonefile copies whole files only
// (the blob store holds many files' contents in one), so it reads and
// writes.
func copyRange(in int, off int64, out int, size int64) error {
	return copyByReading(in, off, out, size)
}
