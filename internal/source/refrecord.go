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

// checkRecordedRef refuses a pin whose tag was last seen at another
// commit. Before refusing it asks the server once where the tag points
// now: a tag moved back, or a record made by a wrong recipe, is corrected
// and the run goes on. When the server cannot be asked, the record
// decides.
func (c *cache) checkRecordedRef(ctx context.Context, req Request) error {
	ref, want := req.Pin.Ref, req.Pin.Commit
	if ref == "" || fullHash.MatchString(ref) || req.repository() == "" {
		return nil
	}
	repo := newRemoteRepo(req.repository())
	rec := c.readRef(repo.shown, ref)
	if rec == nil || rec.Commit == want {
		return nil
	}
	got, err := resolveRef(ctx, repo, ref)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil && got != "" {
		c.recordRef(repo.shown, ref, got)
		if got == want {
			return nil
		}
		return &MismatchError{Ref: ref, Want: want, Got: got, Repository: repo.shown,
			Note: "the pinned commit is cached, but the tag no longer points at it"}
	}
	why := "the server could not be asked now"
	if err != nil {
		why += " (" + shortReason(err) + ")"
	}
	return &MismatchError{Ref: ref, Want: want, Got: rec.Commit, Repository: repo.shown,
		Note: fmt.Sprintf("as a fetch found it at %s; the pinned commit is cached, but %s, so it is not used", rec.Resolved.Format(time.RFC3339), why)}
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
