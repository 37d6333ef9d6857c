package backport

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/epp-build/epp-build/internal/patchset"
)

// ConflictStop is returned when the rebase stopped at a patch: it does not
// apply, or --continue found nothing to record for it. The work tree is
// left for the user; the message gives rebase's own next steps.
type ConflictStop struct {
	// Op is the command stopped: "pick", or "" for a rebase.
	Op    string
	Dir   string
	Patch string
	// Pick names a stopped pick as its user knows it (pickLabel): the
	// abbreviated commit, or the file, and the subject.
	Pick string
	Err  error
	// Marked are the files holding conflict markers (or .rej files).
	Marked []string
}

func (e *ConflictStop) Error() string {
	var b strings.Builder
	op := e.Op
	if op == "" {
		op = "rebase"
	}
	at := e.Patch
	if e.Pick != "" {
		at = e.Pick
	}
	fmt.Fprintf(&b, "%s stopped at %s: %s\n", op, at, describe(e.Err))
	if len(e.Marked) > 0 {
		fmt.Fprintf(&b, "conflicts marked in %s: %s\n", e.Dir, strings.Join(e.Marked, ", "))
	}
	if op == "pick" && errors.Is(e.Err, errPickEmpty) {
		// As git cherry-pick: a pick that would record nothing is
		// dropped with --skip, not continued.
		fmt.Fprintf(&b, "next: `epp-build pick --skip --dir %s` to drop this pick and go on with the rest; "+
			"or edit the files in %s so they hold the change it should make, then `epp-build pick --continue --dir %s`; "+
			"or `epp-build pick --abort --dir %s` to throw the pick away", e.Dir, e.Dir, e.Dir, e.Dir)
		return b.String()
	}
	if op == "pick" {
		fmt.Fprintf(&b, "next: edit the files in %s so they hold the pick's change and remove every conflict marker "+
			"(deleting a .rej file drops that change; deleting a file records its deletion), then run `epp-build pick --continue --dir %s`; "+
			"or `epp-build pick --skip --dir %s` to drop this pick and go on with the rest; "+
			"or `epp-build pick --abort --dir %s` to throw the pick away", e.Dir, e.Dir, e.Dir, e.Dir)
		return b.String()
	}
	fmt.Fprintf(&b, "next: edit the files in %s so they hold the patch's change (the patch is %s) and remove every conflict marker "+
		"(deleting a .rej file drops that change; deleting a file records its deletion), then run `epp-build rebase --continue --dir %s`; "+
		"or `epp-build rebase --skip --dir %s` to drop the patch; or `epp-build rebase --abort --dir %s` to throw the rebase away",
		e.Dir, filepath.Join(e.Dir, ".git", "epp-build", "rebase", e.Patch), e.Dir, e.Dir, e.Dir)
	return b.String()
}

func (e *ConflictStop) Unwrap() error { return e.Err }

// errNothingChanged is --continue on a work tree where nothing was done
// for the patch: recording it would tie the previous commit to this patch.
var errNothingChanged = errors.New("--continue found nothing to record: the work tree and HEAD are as the rebase left them, so the patch's change is in no file")

// errPickEmpty is a pick that would record nothing: its change is in the
// tree already (merged cleanly to no change), or --continue found nothing
// done for it. PickEmpty says which.
var errPickEmpty = errors.New("nothing to record")

// PickEmpty is a stop at a pick that would record no change.
type PickEmpty struct {
	// Pick is the pick's label; Continued tells a --continue that found
	// nothing done from a merge that left nothing to do.
	Pick      string
	Continued bool
}

func (e *PickEmpty) Error() string {
	if e.Continued {
		return fmt.Sprintf("nothing to record for %s: the work tree and HEAD are as the pick left them, so its change is in no file (if it is in the series already, skip it)", e.Pick)
	}
	return fmt.Sprintf("nothing to record for %s: merged three-way it changes nothing, so its change is in the series already (skip it)", e.Pick)
}

func (e *PickEmpty) Is(target error) bool { return target == errPickEmpty }

// MarkersLeft is --continue while conflict markers are still in files.
type MarkersLeft struct{ Files []string }

func (e *MarkersLeft) Error() string {
	return fmt.Sprintf("conflict markers are still in %s: resolve them (or delete the .rej files once handled) before --continue", strings.Join(e.Files, ", "))
}

// describe says why a patch stopped, without apply's advice (refresh and
// export), which is not what a rebase in progress wants.
func describe(err error) string {
	var c *patchset.ConflictError
	if !errors.As(err, &c) {
		return err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "file %s, hunk %s: line %d: expected %q, found %q", c.File, c.Hunk, c.Line,
		strings.TrimSuffix(c.Expected, "\n"), strings.TrimSuffix(c.Found, "\n"))
	if c.Nearest > 0 {
		fmt.Fprintf(&b, "; nearest fit at line %d (%d of %d lines match)", c.Nearest, c.NearestMatched, c.NearestOf)
	} else {
		b.WriteString("; the hunk fits nowhere in the file")
	}
	return b.String()
}
