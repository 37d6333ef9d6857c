package outdir

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// LockPath is the lock file of the output folder out, there while an
// apply runs. It lies beside out, not in it: a fresh apply swaps out for a
// new folder, which would take a lock inside it away, and a file in the
// tree would show up as a change.
func LockPath(out string) string { return out + ".epp-build.lock" }

// lockPoll is how often a waiting run tries the lock again.
const lockPoll = 20 * time.Millisecond

// Lock makes the caller the only apply writing out until unlock is
// called. A second run waits for the first rather than failing: the first
// is bounded by its own work and Ctrl-C still stops the wait, while a
// refusal would only make the user run it again. notice (may be nil) is
// told once when it has to wait.
//
// unlock removes the lock file so that nothing is left beside out. A run
// that waited on the removed file finds, once it holds it, that the path
// no longer names it, and locks the path again: two runs never hold locks
// on two different files.
func Lock(ctx context.Context, out string, notice func(format string, args ...any)) (unlock func(), err error) {
	path := LockPath(out)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, fmt.Errorf("create parent of %s: %w", out, err)
	}
	told := false
	for {
		l := flock.New(path)
		ok, err := l.TryLock()
		if err == nil && !ok {
			if notice != nil && !told {
				notice("waiting for another epp-build apply into %s%s", out, holder(path))
				told = true
			}
			ok, err = l.TryLockContext(ctx, lockPoll)
		}
		if err != nil || !ok {
			_ = l.Close()
			return nil, fmt.Errorf("lock %s: %w", out, orCancelled(err))
		}
		held, herr := l.Stat()
		now, perr := os.Stat(path)
		if herr != nil || perr != nil || !os.SameFile(held, now) {
			_ = l.Close()
			continue
		}
		// Who holds it, for the notice of a run that waits: the file keeps
		// its inode, so the lock stays.
		_ = os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
		return func() {
			_ = os.Remove(path)
			_ = l.Close()
		}, nil
	}
}

var holderLimit = inputfile.Limit{Bytes: 64, What: "a lock file"}

// holder says which process holds the lock file path, when it says.
func holder(path string) string {
	// A pid and a newline; anything else in its place says nothing.
	data, err := inputfile.ReadFile(path, "", holderLimit)
	if err != nil {
		return ""
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
		return fmt.Sprintf(" (pid %d)", pid)
	}
	return ""
}

func orCancelled(err error) error {
	if err == nil {
		return context.Canceled
	}
	return err
}
