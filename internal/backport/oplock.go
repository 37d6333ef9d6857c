package backport

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gofrs/flock"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// BusyError is a rebase or pick command refused because another
// epp-build runs one for the same patches folder: two writers of one
// state (two --continue, --continue and --abort) leave it unfinishable.
type BusyError struct {
	Kind  string // "rebase" or "pick"
	Doing string // what the other run does, as it said
	PID   int    // 0 when it did not say
}

func (e *BusyError) Error() string {
	who := "another epp-build"
	if e.PID > 0 {
		who += fmt.Sprintf(" (pid %d)", e.PID)
	}
	doing := e.Doing
	if doing == "" {
		doing = "running"
	}
	return fmt.Sprintf("%s is %s this %s: wait until it ends, then run the command again", who, doing, e.Kind)
}

var ownerLimit = inputfile.Limit{Bytes: 256, What: "a rebase or pick lock file", Raise: "remove it; it only names a process"}

// lockOp takes the lock of the rebases (or picks) of the patches folder
// whose default work tree is defaultDir, without waiting. The lock file
// lives beside that work tree under the user cache folder, never in a
// --dir, so it cannot bring a removed work tree back; the kernel drops it
// when the process dies. doing says, to a run refused meanwhile, what
// this one does ("continuing", "aborting", ...).
//
// unlock removes the file, so nothing is left in the cache: a run that
// opened the removed file and locked it finds that the path no longer
// names it and tries the path again, so two runs never hold two files.
func lockOp(defaultDir, kind, doing string) (unlock func(), err error) {
	path := defaultDir + ".lock"
	for {
		l := flock.New(path)
		ok, err := l.TryLock()
		if err != nil {
			return nil, fmt.Errorf("lock the %s state beside %s: %w", kind, defaultDir, err)
		}
		if !ok {
			_ = l.Close()
			return nil, busy(path, kind)
		}
		held, herr := l.Stat()
		now, perr := os.Stat(path)
		if herr != nil || perr != nil || !os.SameFile(held, now) {
			_ = l.Close()
			continue
		}
		// Who holds it, for the message of a run refused meanwhile: the
		// file keeps its inode, so the lock stays.
		_ = os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+" "+doing+"\n"), 0o644)
		return func() {
			_ = os.Remove(path)
			_ = l.Close()
		}, nil
	}
}

// busy is the refusal of a run that found the lock file path held.
func busy(path, kind string) *BusyError {
	b := &BusyError{Kind: kind}
	if data, err := inputfile.ReadFile(path, "", ownerLimit); err == nil {
		pid, what, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
		b.PID, _ = strconv.Atoi(pid)
		if validDoing[what] {
			b.Doing = what
		}
	}
	return b
}

// validDoing are the words a lock holder writes: the note is read back
// into a message, so nothing else of it is shown.
var validDoing = map[string]bool{"starting": true, "continuing": true, "skipping": true, "aborting": true, "pruning": true}

// doing names a command's operation for lockOp.
func doing(cont, skip, abort bool) string {
	switch {
	case cont:
		return "continuing"
	case skip:
		return "skipping"
	case abort:
		return "aborting"
	}
	return "starting"
}
