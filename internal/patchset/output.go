package patchset

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/go-git/go-git/v5"
)

// Base is the upstream tree a series applies to, as the source stage
// delivers it.
type Base struct {
	// UpstreamCommit is the pinned commit, Time its commit time; Via says
	// which source gave it.
	UpstreamCommit string
	Time           time.Time
	Via            string
	// Repository is where the tree was read, redacted (the --upstream URL
	// or folder when one was given); Provenance says where the copy came
	// from for messages ("from cache (fetched via git from URL at TIME)").
	Repository, Provenance string
	// Materialize makes dst (which must not exist) a git work tree at the
	// upstream base.
	Materialize func(ctx context.Context, dst string) error
}

// Outcome says what ApplyTo did.
type Outcome struct {
	Dir string
	// AlreadyApplied is true when dir already held exactly this series and
	// nothing was written.
	AlreadyApplied bool
	// Reasons says why an existing tree was replaced.
	Reasons []string
	Record  *Record
}

// LoadSeries parses and checks every patch of the recipe before anything
// is written.
func LoadSeries(r *recipe.Recipe) ([]*Patch, error) {
	var all []*Patch
	for _, sp := range r.Series {
		ps, err := ParseFile(sp.Path, sp.Name)
		if err != nil {
			return nil, err
		}
		all = append(all, ps...)
	}
	if err := Check(all); err != nil {
		return nil, err
	}
	return all, nil
}

// ApplyTo applies the recipe's series to base and leaves the result in
// out. The work happens in a staging folder beside out, which replaces out
// only when the whole series applied: a failed or cancelled run leaves out
// as it was.
//
// fetch is called only when there is work to do, so a tree that is already
// applied needs no upstream at all.
func ApplyTo(ctx context.Context, r *recipe.Recipe, patches []*Patch, fetch func(context.Context) (Base, error), out string, opt Options) (*Outcome, error) {
	out, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	reasons, err := compareExisting(r, patches, out)
	if err != nil {
		return nil, err
	}
	if reasons != nil && len(reasons) == 0 {
		rec, _ := ReadRecord(out)
		return &Outcome{Dir: out, AlreadyApplied: true, Record: rec}, nil
	}
	base, err := fetch(ctx)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, fmt.Errorf("create parent of %s: %w", out, err)
	}
	staging, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".epp-build-staging-")
	if err != nil {
		return nil, fmt.Errorf("create staging folder beside %s: %w", out, err)
	}
	defer os.RemoveAll(staging)
	work := filepath.Join(staging, "tree")
	if err := base.Materialize(ctx, work); err != nil {
		return nil, err
	}
	res, err := ApplyToRepo(ctx, work, patches, opt)
	if err != nil {
		return nil, err
	}
	rec := &Record{
		Version: r.Version, Repository: upstreamURL(r, base), Ref: r.Upstream.Ref, Provenance: base.Provenance,
		UpstreamCommit: base.UpstreamCommit, UpstreamTime: base.Time, Via: base.Via, Result: *res,
	}
	if err := WriteRecord(work, rec); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := replace(work, out, staging); err != nil {
		return nil, err
	}
	return &Outcome{Dir: out, Reasons: reasons, Record: rec}, nil
}

// replace moves work to out; an existing out is moved aside first and
// removed only after the new tree is in place.
func replace(work, out, staging string) error {
	if _, err := os.Lstat(out); errors.Is(err, os.ErrNotExist) {
		return os.Rename(work, out)
	}
	if empty, _ := isEmptyDir(out); empty {
		if err := os.Remove(out); err != nil {
			return err
		}
		return os.Rename(work, out)
	}
	old := filepath.Join(staging, "previous")
	if err := os.Rename(out, old); err != nil {
		return fmt.Errorf("move the previous %s aside: %w", out, err)
	}
	if err := os.Rename(work, out); err != nil {
		_ = os.Rename(old, out)
		return fmt.Errorf("move the new tree to %s: %w", out, err)
	}
	return nil
}

// ExistingTreeError is an --out folder apply must not replace.
type ExistingTreeError struct {
	Dir    string
	Reason string
}

func (e *ExistingTreeError) Error() string {
	return fmt.Sprintf("output %s: %s", e.Dir, e.Reason)
}

// compareExisting looks at what out holds. It returns nil when there is
// nothing there, an empty list when out already holds this series
// unchanged, or the reasons to apply again.
func compareExisting(r *recipe.Recipe, patches []*Patch, out string) ([]string, error) {
	fi, err := os.Lstat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &ExistingTreeError{Dir: out, Reason: "exists and is not a folder; choose another --out"}
	}
	if empty, err := isEmptyDir(out); err != nil || empty {
		return nil, err
	}
	rec, err := ReadRecord(out)
	if err != nil {
		return nil, &ExistingTreeError{Dir: out, Reason: fmt.Sprintf("its apply record is unreadable (%v); remove the folder or choose another --out", err)}
	}
	if rec == nil {
		return nil, &ExistingTreeError{Dir: out, Reason: "exists, is not empty and was not made by epp-build apply; remove it or choose another --out"}
	}
	if modified := modifiedFiles(out, rec); len(modified) > 0 {
		return nil, &ExistingTreeError{Dir: out, Reason: fmt.Sprintf("has local changes that a re-apply would lose (%s); commit and export them, or remove the folder", strings.Join(modified, ", "))}
	}
	return seriesChanges(r, patches, rec), nil
}

// seriesChanges explains how the wanted series differs from the record.
func seriesChanges(r *recipe.Recipe, patches []*Patch, rec *Record) []string {
	reasons := []string{}
	if rec.UpstreamCommit != r.Upstream.Commit {
		reasons = append(reasons, fmt.Sprintf("upstream commit changed (%s -> %s)", short(rec.UpstreamCommit), short(r.Upstream.Commit)))
	}
	if rec.Version != r.Version {
		reasons = append(reasons, fmt.Sprintf("version changed (%s -> %s)", rec.Version, r.Version))
	}
	for i, p := range patches {
		if i >= len(rec.Patches) {
			reasons = append(reasons, fmt.Sprintf("patch %s is new", p.Name()))
			continue
		}
		a := rec.Patches[i]
		switch {
		case a.File != p.File || a.Part != partNumber(p):
			reasons = append(reasons, fmt.Sprintf("patch %d is now %s (was %s)", i+1, p.Name(), a.File))
		case a.SHA256 != p.SHA256:
			reasons = append(reasons, fmt.Sprintf("patch %s changed (sha256 %s -> %s)", p.Name(), short(a.SHA256), short(p.SHA256)))
		}
	}
	for _, a := range rec.Patches[min(len(patches), len(rec.Patches)):] {
		reasons = append(reasons, fmt.Sprintf("patch %s was removed from the series", a.File))
	}
	return reasons
}

// modifiedFiles lists the files the series touched whose content on disk
// is no longer what apply wrote, and says when HEAD moved.
func modifiedFiles(dir string, rec *Record) []string {
	final := map[string]string{}
	for _, a := range rec.Patches {
		for p, h := range a.Files {
			final[p] = h
		}
	}
	var modified []string
	if head, err := readHead(dir); err == nil && rec.Head != "" && head != rec.Head {
		modified = append(modified, "HEAD moved to "+short(head))
	}
	paths := make([]string, 0, len(final))
	for p := range final {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if blobHashOnDisk(filepath.Join(dir, filepath.FromSlash(p))) != final[p] {
			modified = append(modified, p)
		}
	}
	return modified
}

// blobHashOnDisk is the git blob id of a file, or "" when it is absent.
func blobHashOnDisk(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return ""
	}
	var data []byte
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		if err != nil {
			return "?"
		}
		data = []byte(target)
	} else if data, err = os.ReadFile(path); err != nil {
		return "?"
	}
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func readHead(dir string) (string, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return "", err
	}
	head, err := repo.Head()
	if err != nil {
		return "", err
	}
	return head.Hash().String(), nil
}

func isEmptyDir(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	return len(entries) == 0, nil
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
