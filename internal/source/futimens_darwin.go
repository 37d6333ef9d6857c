package source

import (
	"time"

	"golang.org/x/sys/unix"
)

// futimens dates a descriptor. macOS has no utimensat on a descriptor, so
// futimes dates it to the microsecond; callers stat the file afterwards, so
// the index records the time the file really has.
func futimens(fd int, t time.Time) error {
	tv := unix.NsecToTimeval(t.UnixNano())
	return unix.Futimes(fd, []unix.Timeval{tv, tv})
}
