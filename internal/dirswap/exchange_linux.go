//go:build linux

package dirswap

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

var errNoExchange = errors.New("the file system cannot exchange two folders")

// exchange swaps the folders a and b in one step (renameat2
// RENAME_EXCHANGE): there is no instant at which either name is missing.
// A kernel or file system without it gets errNoExchange.
var exchange = func(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		return errNoExchange
	}
	if err != nil {
		return fmt.Errorf("exchange %s and %s: %w", a, b, err)
	}
	return nil
}

// renameNoReplace renames from to to unless to exists: a plain rename
// would replace an empty folder someone made at to meanwhile.
func renameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		return renameIfAbsent(from, to)
	}
	if err != nil {
		return fmt.Errorf("rename %s to %s: %w", from, to, err)
	}
	return nil
}
