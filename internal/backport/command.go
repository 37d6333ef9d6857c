package backport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// The pick and rebase commands' sequencing: each command makes one call
// here and prints what it returns (render.go).

// PickRequest is one pick: the picks go into Version, created extending
// Extends when that is set.
type PickRequest struct {
	Root    string // the folder of the versions (--patches)
	Version string
	Extends string
	Sources []string // patch files, or revisions of Options.Repo
	Options PickOptions
	// Load reads Version's recipe; it runs after Version is created.
	Load  func() (*recipe.Recipe, error)
	Apply patchset.Applier
	// Dir is the pick's work tree, kept at a conflict; "" = a folder per
	// Root under the user cache folder. Continue, Skip and Abort take the
	// pick stopped there on.
	Dir                   string
	Continue, Skip, Abort bool
	Log                   io.Writer
}

// Picked names the patches a pick added to a version.
type Picked struct {
	Version string
	Names   []string
	Aborted bool
}

// PickInto adds the picks to the version's series and writes it; a
// version it created is removed again when a pick fails. A pick that
// does not apply is merged three-way; at a conflict the work tree and a
// created version are kept for --continue or --abort (*ConflictStop).
func PickInto(ctx context.Context, req PickRequest) (*Picked, error) {
	resume := 0
	for _, b := range []bool{req.Continue, req.Skip, req.Abort} {
		if b {
			resume++
		}
	}
	if resume > 1 {
		return nil, &UsageError{fmt.Errorf("--continue, --skip and --abort exclude each other")}
	}
	if req.Version == "" && resume == 0 {
		return nil, &UsageError{fmt.Errorf("--version is required")}
	}
	defaultDir, err := defaultDirFor(req.Root, "pick")
	if err != nil {
		return nil, err
	}
	unlockOp, err := lockOp(defaultDir, "pick", doing(req.Continue, req.Skip, req.Abort))
	if err != nil {
		return nil, err
	}
	defer unlockOp()
	dir := req.Dir
	if dir == "" {
		dir = defaultDir
	}
	log := req.Log
	if log == nil {
		log = io.Discard
	}
	switch {
	case req.Abort:
		return abortPick(dir, req.Root)
	case req.Continue:
		return continuePick(ctx, dir, req.Root, log)
	case req.Skip:
		return skipPick(ctx, dir, req.Root, log)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", pickStateFile)); err == nil {
		return nil, &UsageError{fmt.Errorf("a pick is stopped in %s: finish it with `epp-build pick --continue --dir %s`, drop the pick it stopped at with --skip, or throw it away with --abort", dir, dir)}
	}
	if err := removeIfEmpty(dir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err == nil {
		if req.Dir != "" {
			return nil, &UsageError{fmt.Errorf("--dir %s exists: choose a folder that does not", dir)}
		}
		if err := os.RemoveAll(dir); err != nil { // a finished pick's leftovers
			return nil, err
		}
	}
	created := ""
	if req.Extends != "" {
		d, err := NewVersion(req.Root, req.Version, req.Extends)
		if err != nil {
			return nil, &UsageError{err}
		}
		created = d
	}
	res, err := pickInto(ctx, req, dir, created)
	var stop *ConflictStop
	if err != nil && !errors.As(err, &stop) {
		os.RemoveAll(dir)
		if created != "" {
			os.RemoveAll(created)
		}
	}
	return res, err
}

func pickInto(ctx context.Context, req PickRequest, dir, created string) (*Picked, error) {
	r, err := req.Load()
	if err != nil {
		return nil, err
	}
	picks, err := Collect(req.Sources, req.Options)
	var refused *patchset.ParseError
	if errors.As(err, &refused) {
		// A source that cannot be read as a patch is refused input, not
		// a mistake in how pick was called.
		return nil, err
	}
	if err != nil {
		return nil, &UsageError{err}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	st := &pickState{Root: req.Root, Version: r.Version, Created: created, Repo: req.Options.Repo}
	// Kept absolute: --continue may run from another folder.
	for _, path := range []*string{&st.Root, &st.Created, &st.Repo} {
		if *path != "" {
			if *path, err = filepath.Abs(*path); err != nil {
				return nil, err
			}
		}
	}
	return startPick(ctx, r, req.Apply, picks, st, dir)
}

// RebaseRequest is one rebase command: a start (Onto), or Continue, Skip
// or Abort of the rebase in Dir.
type RebaseRequest struct {
	Root string // the folder of the versions (--patches): the default Dir's key
	// Dir is the rebase's work tree; "" = the default folder for Root.
	Dir                   string
	Continue, Skip, Abort bool
	// Onto is the new pin to start at; As the new version ("" = over
	// the recipe's own).
	Onto Onto
	As   string
	// Exec is run in the work tree after each patch (or at the end).
	Exec Exec
	// Load reads the recipe to rebase (a start only).
	Load        func() (*recipe.Recipe, error)
	Materialize Materializer
	// Files, when set, reads the old pin's files the merges' bases need
	// without checking the old pin out.
	Files PinFiles
	Log   io.Writer
	// Ancestry, when set, lets a start drop the picks whose Upstream:
	// commit the new pin already has (upstreamhas.go).
	Ancestry Ancestry
	// Keep keeps the default work tree of a finished rebase; without it
	// the tree (a whole upstream checkout, under the cache) is removed.
	Keep bool
	// Verify type-checks the tree when every patch is through, before the
	// series is written (nil: not checked); NoVerify (--no-verify, a
	// start only: the state keeps it) skips it.
	Verify   Verifier
	NoVerify bool
	// Distance, when set, counts the commits between the old pin and the
	// new, so a start onto an older pin says how far back it goes.
	Distance Distance
}

// Distance counts, in repository, the commits the old pin has that the
// new one lacks (behind) and those the new one has that the old lacks
// (ahead).
type Distance func(ctx context.Context, repository, oldPin, newPin string) (behind, ahead int, err error)

// sayDistance names a new pin older than the old one: the line loses the
// upstream commits in between, which is easy to miss when a tag looks
// newer than a commit (GAIE v1.5.0 lacks 70 commits of 7c1f1994).
func sayDistance(ctx context.Context, req RebaseRequest, old, u recipe.Upstream, repository string) {
	if req.Distance == nil || req.Log == nil || old.Commit == "" || u.Commit == "" || old.Commit == u.Commit {
		return
	}
	behind, ahead, err := req.Distance(ctx, repository, old.Commit, u.Commit)
	if err != nil {
		fmt.Fprintf(req.Log, "notice: could not tell whether %s is older than %s (%v)\n", pinName(u), pinName(old), err)
		return
	}
	if behind == 0 {
		return
	}
	also := ""
	if ahead > 0 {
		also = fmt.Sprintf(", and adds %d the old pin lacks", ahead)
	}
	commits := "commits"
	if behind == 1 {
		commits = "commit"
	}
	fmt.Fprintf(req.Log, "notice: %s moves the line back %d %s: the old pin %s has %d upstream %s it lacks%s\n", pinName(u), behind, commits, pinName(old), behind, commits, also)
}

// Rebased is where a rebase stands after one command.
type Rebased struct {
	Dir     string
	Steps   []Step
	Aborted bool
	// Finished is true when the series was written: the rebase is over.
	Finished bool
	// Removed: Dir was the default work tree, removed once finished.
	Removed bool
	// Verified says what the type-check of the finished tree covered, or
	// that it was skipped ("" when it did not run).
	Verified string
}

// Rebase runs one rebase command. At a stop the result still lists the
// steps so far, with the *ConflictStop.
func Rebase(ctx context.Context, req RebaseRequest) (*Rebased, error) {
	res := &Rebased{Dir: req.Dir}
	resume := req.Continue || req.Skip || req.Abort
	if (req.Continue || req.Skip || req.Abort) && (req.Exec.Command != "" || req.Exec.AtEnd || req.Exec.CAPI) {
		return nil, &UsageError{fmt.Errorf("--exec is given when the rebase starts; --continue runs the command it was started with")}
	}
	if resume && req.NoVerify {
		return nil, &UsageError{fmt.Errorf("--no-verify is given when the rebase starts; --continue checks as the rebase was started")}
	}
	verify := func(ctx context.Context, dir string, skip bool) (string, error) {
		if skip {
			res.Verified = notVerified
			return notVerified, nil
		}
		if req.Verify == nil {
			return "", nil
		}
		said, err := req.Verify(ctx, dir)
		res.Verified = said
		return said, err
	}
	defaultDir, err := DefaultDir(req.Root)
	if err != nil {
		return nil, err
	}
	unlockOp, err := lockOp(defaultDir, "rebase", doing(req.Continue, req.Skip, req.Abort))
	if err != nil {
		return nil, err
	}
	defer unlockOp()
	if res.Dir == "" && resume {
		found, err := FindInProgress(req.Root)
		if err != nil {
			return nil, err
		}
		if found == nil {
			return nil, fmt.Errorf("no rebase in progress for %s: none in %s, and no rebase started with --dir is recorded (give --dir DIR if it was started from another patches folder)", req.Root, defaultDir)
		}
		res.Dir = found.Dir
		if req.Log != nil {
			// The folder comes from a note in the cache, which anyone can edit.
			fmt.Fprintf(req.Log, "found the stopped rebase in %s (%s)\n", textsafe.Escape(found.Dir), textsafe.Escape(found.How))
		}
	}
	if res.Dir == "" {
		res.Dir = defaultDir
		if err := ClearFinished(defaultDir); err != nil {
			return nil, err
		}
	}
	defer func() {
		if res.Aborted || res.Finished {
			forgetActive(defaultDir, res.Dir)
		}
	}()
	switch {
	case req.Abort:
		if err := abortIn(res.Dir, req.Root); err != nil {
			return nil, err
		}
		res.Aborted = true
		return res, nil
	case req.Continue:
		res.Steps, err = continueWith(ctx, res.Dir, req.Root, req.Log, req.Exec.Stage, verify)
	case req.Skip:
		res.Steps, err = skipWith(ctx, res.Dir, req.Root, req.Log, req.Exec.Stage, verify)
	default:
		if !resume && res.Dir != defaultDir {
			if err := removeIfEmpty(res.Dir); err != nil {
				return nil, err
			}
			if err := clearKilledStart(defaultDir, res.Dir, req.Log); err != nil {
				return nil, err
			}
			if _, err := os.Stat(res.Dir); errors.Is(err, os.ErrNotExist) { // not another rebase's
				if err := recordActive(defaultDir, res.Dir); err != nil {
					return nil, err
				}
			}
		}
		res.Steps, err = start(ctx, req, res.Dir, verify)
		if res.Steps == nil && err != nil {
			return res, err
		}
	}
	res.Finished = err == nil
	// A --dir is the user's; the default work tree is the cache's, and
	// nothing in it is needed once the series is written.
	if res.Finished && !req.Keep && res.Dir == defaultDir {
		if err := os.RemoveAll(res.Dir); err != nil {
			return res, fmt.Errorf("the rebase finished, but removing its work tree %s failed: %w", res.Dir, err)
		}
		res.Removed = true
	}
	return res, err
}

func start(ctx context.Context, req RebaseRequest, dir string, verify verifyFunc) ([]Step, error) {
	if (req.Exec.AtEnd || req.Exec.CAPI) && req.Exec.Command == "" {
		return nil, &UsageError{fmt.Errorf("--exec-at-end, --capi and --capi-src go with --exec CMD: the command to run in the work tree")}
	}
	if req.Exec.CAPISrc != "" {
		abs, err := filepath.Abs(req.Exec.CAPISrc) // the command runs in the work tree
		if err != nil {
			return nil, err
		}
		req.Exec.CAPISrc = abs
	}
	if req.Onto.Ref == "" {
		return nil, &UsageError{fmt.Errorf("--onto is required: the upstream tag or commit to rebase onto")}
	}
	r, err := req.Load()
	if err != nil {
		return nil, err
	}
	if err := CanStart(r, req.As, dir); err != nil {
		return nil, err
	}
	u, err := NewPin(ctx, r.Upstream, req.Onto, req.Log)
	if err != nil {
		return nil, err
	}
	from := u.Repository
	if req.Onto.Repository != "" {
		from = req.Onto.Repository // a mirror, for the lookup only
	}
	sayDistance(ctx, req, r.Upstream, u, from)
	r, dropped, err := withoutUpstreamPicks(ctx, r, u, from, req.Ancestry, req.Log)
	if err != nil {
		return nil, err
	}
	steps, err := startWith(ctx, r, u, req.As, dir, req.Materialize, req.Files, req.Log, req.NoVerify, verify, req.Exec)
	if steps == nil && err != nil {
		return nil, err
	}
	return append(dropped, steps...), err
}
