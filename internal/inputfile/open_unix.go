//go:build unix

package inputfile

import "syscall"

// openFlags keep a FIFO's open from waiting for a writer (O_NONBLOCK)
// and a symlink swapped in after the check from being followed.
const (
	openFlags = syscall.O_NONBLOCK
	noFollow  = syscall.O_NOFOLLOW
)
