package dirswap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// renameIfAbsent is renameNoReplace where the system has no such rename:
// the check and the rename are two steps.
func renameIfAbsent(from, to string) error {
	if _, err := os.Lstat(to); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("rename %s to %s: %w", from, to, fs.ErrExist)
	}
	return os.Rename(from, to)
}
