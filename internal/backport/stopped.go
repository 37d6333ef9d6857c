package backport

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// MayHoldStopped says whether the work tree dir may hold a stopped rebase
// or pick, which `cache prune` must keep: it holds the user's conflict
// resolution. Anything at either state file's path counts, even what
// status would not read as one (a link, a folder, a file it may not
// stat): when in doubt, the tree is kept.
func MayHoldStopped(dir string) bool {
	for _, state := range []string{stateFile, pickStateFile} {
		if _, err := os.Lstat(filepath.Join(dir, ".git", state)); !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

// TryLockWorkTree takes, without waiting, the lock every rebase or pick
// command of a patches folder holds beside its default work tree dir
// while it runs (lockOp; a pick writes no state until it stops): ok is
// false while one runs. `cache prune` holds it while it looks at and
// removes the tree, and a command started meanwhile is refused as busy.
func TryLockWorkTree(dir string) (unlock func(), ok bool, err error) {
	unlock, err = lockOp(dir, filepath.Base(filepath.Dir(dir)), "pruning")
	var busy *BusyError
	if errors.As(err, &busy) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return unlock, true, nil
}
