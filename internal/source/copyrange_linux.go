package source

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// copyRange copies size bytes at off in the descriptor in to the start of
// out.
func copyRange(in int, off int64, out int, size int64) error {
	for done := int64(0); done < size; {
		n, err := unix.CopyFileRange(in, &off, out, nil, int(min(size-done, 1<<30)), 0)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EXDEV || err == unix.ENOSYS || err == unix.EOPNOTSUPP || err == unix.EINVAL:
			return copyByReading(in, off, out, size-done)
		case err != nil:
			return err
		case n == 0:
			return fmt.Errorf("the blob store ended after %d of %d bytes", done, size)
		}
		done += int64(n)
	}
	return nil
}
