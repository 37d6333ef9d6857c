//go:build unix

package dirswap

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// oNoFollow keeps a copy from following a link put where a file was, or
// from waiting on a FIFO.
const oNoFollow = unix.O_NOFOLLOW | unix.O_NONBLOCK

var errBusy = errors.New("held by a running writer")

// lockDir holds an exclusive lock on the folder itself (no lock file to
// leave behind); the kernel drops it when the process dies, so a killed
// writer's folders are free to clean.
func lockDir(path string) (func(), error) {
	return flockDir(path, unix.LOCK_EX)
}

// tryLockDir is lockDir that returns errBusy instead of waiting.
func tryLockDir(path string) (func(), error) {
	return flockDir(path, unix.LOCK_EX|unix.LOCK_NB)
}

func flockDir(path string, how int) (func(), error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	for {
		err = unix.Flock(fd, how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, errBusy
		}
		return nil, &fs.PathError{Op: "lock", Path: path, Err: err}
	}
	return func() { unix.Close(fd) }, nil
}
