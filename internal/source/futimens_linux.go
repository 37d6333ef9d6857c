package source

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// futimens dates a descriptor: utimensat with a NULL path acts on the
// descriptor (what futimens does in C).
func futimens(fd int, t time.Time) error {
	ts := [2]unix.Timespec{unix.NsecToTimespec(t.UnixNano()), unix.NsecToTimespec(t.UnixNano())}
	if _, _, errno := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0); errno != 0 {
		return errno
	}
	return nil
}
