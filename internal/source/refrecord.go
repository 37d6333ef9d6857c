package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/inputfile"
)

// A cache entry is keyed by commit, so a warm run never asks the server
// where the recipe's tag points now: a tag moved upstream after its
// commit was cached would go unnoticed. Every git fetch of a tag therefore
// records the commit the tag resolved to, per repository, and a run whose
// pin disagrees with the newest record is not served from the cache.

// refRecord is what a fetch found a ref of a repository to point at.
type refRecord struct {
	Repository string    `json:"repository"` // redacted, as shown
	Ref        string    `json:"ref"`
	Commit     string    `json:"commit"`
	Resolved   time.Time `json:"resolved"`
}

var refRecordLimit = inputfile.Limit{Bytes: 64 << 10, What: "a cached tag record"}

// refRecordPath is where the record of ref in repository lives: beside
// the entries, named by a hash of both.
func (c *cache) refRecordPath(repository, ref string) string {
	sum := sha256.Sum256([]byte(repository + "\x00" + ref))
	return filepath.Join(filepath.Dir(c.root), "refs", hex.EncodeToString(sum[:16])+".json")
}

// recordRef stores that ref of repository resolved to commit now. A ref
// that is itself a commit hash records nothing. Failing to write the
// record only loses the check it enables, so the error is dropped.
func (c *cache) recordRef(repository, ref, commit string) {
	if ref == "" || fullHash.MatchString(ref) {
		return
	}
	data, err := json.Marshal(refRecord{Repository: repository, Ref: ref, Commit: commit, Resolved: time.Now().UTC()})
	if err != nil {
		return
	}
	path := c.refRecordPath(repository, ref)
	if os.MkdirAll(filepath.Dir(path), 0o755) == nil {
		_ = atomicfile.Write(path, data, 0o644)
	}
}

// readRef returns the record of ref in repository, or nil.
func (c *cache) readRef(repository, ref string) *refRecord {
	data, err := inputfile.ReadFile(c.refRecordPath(repository, ref), "", refRecordLimit)
	if err != nil {
		return nil
	}
	var r refRecord
	if json.Unmarshal(data, &r) != nil || r.Repository != repository || r.Ref != ref || !fullHash.MatchString(r.Commit) {
		return nil
	}
	return &r
}

// hasTagPin is whether the request pins a ref by name (a tag, or a full
// ref name) of a git repository, which can move under the pinned commit.
func (r Request) hasTagPin() bool {
	return r.Pin.Ref != "" && !fullHash.MatchString(r.Pin.Ref) && r.repository() != ""
}

// checkRecordedRef refuses a pin whose tag was last seen at another
// commit. Before refusing it asks the server once where the tag points
// now: a tag moved back, or a record made by a wrong recipe, is corrected
// and the run goes on. When the server cannot be asked, the record
// decides. asked is whether the server answered where the tag points
// (and it points at the pin), so the caller need not ask again.
func (c *cache) checkRecordedRef(ctx context.Context, req Request) (asked bool, err error) {
	ref, want := req.Pin.Ref, req.Pin.Commit
	if !req.hasTagPin() {
		return false, nil
	}
	repo := newRemoteRepo(req.repository())
	rec := c.readRef(repo.shown, ref)
	if rec == nil || rec.Commit == want {
		return false, nil
	}
	got, err := resolveRef(ctx, repo, ref)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err == nil && got != "" {
		c.recordRef(repo.shown, ref, got)
		if got == want {
			return true, nil
		}
		return true, movedTagError(repo, ref, want, got)
	}
	why := "the server could not be asked now"
	if err != nil {
		why += " (" + shortReason(err) + ")"
	}
	return false, &MismatchError{Ref: ref, Want: want, Got: rec.Commit, Repository: repo.shown,
		Note: fmt.Sprintf("as a fetch found it at %s; the pinned commit is cached, but %s, so it is not used", rec.Resolved.Format(time.RFC3339), why)}
}

func movedTagError(repo remoteRepo, ref, want, got string) error {
	return &MismatchError{Ref: ref, Want: want, Got: got, Repository: repo.shown,
		Note: "the pinned commit is cached, but the tag no longer points at it"}
}

// tagConfirmTimeout bounds the one question a warm run asks the server:
// a warm run must stay fast, and must not fail because it is offline.
var tagConfirmTimeout = 5 * time.Second

// confirmTag asks the server once where the pinned tag points, for a tree
// served from the cache: a tag moved upstream after its commit was cached
// is refused even when no fetch has seen it move. A server that cannot be
// asked (offline, slow, gone) costs one notice and the run goes on; an
// answer is recorded for the runs that cannot ask.
func (c *cache) confirmTag(ctx context.Context, req Request) error {
	ref, want := req.Pin.Ref, req.Pin.Commit
	repo := newRemoteRepo(req.repository())
	askCtx, cancel := context.WithTimeout(ctx, tagConfirmTimeout)
	defer cancel()
	got, err := resolveRef(askCtx, repo, ref)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch {
	case err == nil && got == want:
		c.recordRef(repo.shown, ref, got)
		return nil
	case err == nil && got != "":
		c.recordRef(repo.shown, ref, got)
		return movedTagError(repo, ref, want, got)
	case err == nil:
		req.notice("could not confirm that tag %s at %s still points at %s (the server has no such tag now); using the cached copy", ref, repo.shown, want)
	case askCtx.Err() != nil:
		req.notice("could not confirm that tag %s at %s still points at %s (no answer within %s); using the cached copy", ref, repo.shown, want, tagConfirmTimeout)
	default:
		req.notice("could not confirm that tag %s at %s still points at %s (%s); using the cached copy", ref, repo.shown, want, shortReason(err))
	}
	return nil
}

// resolveRef is the commit the server's ref (a tag name or a full ref
// name) points at, tags peeled; "" when it has no such ref.
func resolveRef(ctx context.Context, repo remoteRepo, ref string) (string, error) {
	refs, err := listRefs(ctx, repo)
	if err != nil {
		return "", err
	}
	name := ref
	if !strings.HasPrefix(ref, "refs/") {
		name = "refs/tags/" + ref
	}
	found := ""
	for _, r := range refs {
		switch r.Name().String() {
		case name + "^{}":
			return r.Hash().String(), nil // the peeled commit of an annotated tag
		case name:
			found = r.Hash().String()
		}
	}
	return found, nil
}
