package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	gitcache "github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/epp-build/epp-build/internal/filetree"
	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/redact"
)

// History is a local copy of an upstream's commits and trees, without
// file contents when the server can leave them out (a blob:none partial
// clone): enough to say whether a commit is an ancestor of a pin and
// which commits between two pins touch a file, at a fraction of a full
// clone's size. It lives in the upstream cache beside the pinned trees,
// under the same per-key lock, is fetched into incrementally by the same
// upload-pack client (historyfetch.go) and read with go-git.
type History struct {
	c     *cache
	key   string
	dir   string
	shown string

	s *filesystem.Storage
	// ancestry memoises each pin's ancestors, asked for once per pick.
	ancestry map[plumbing.Hash]map[plumbing.Hash]bool
}

// Commit is one upstream commit: hash and subject.
type Commit struct {
	Hash    string `json:"commit"`
	Subject string `json:"subject"`
}

// historyPrefix starts the key of a history in the upstream cache.
const historyPrefix = "history-"

// IsHistoryKey says whether an upstream cache folder is a history rather
// than a pinned tree.
func IsHistoryKey(name string) bool { return strings.HasPrefix(name, historyPrefix) }

// OpenHistory makes sure the history cache for repository holds each
// of commits and their ancestry, fetching what it lacks.
func OpenHistory(ctx context.Context, cacheDir, repository string, commits ...string) (*History, error) {
	h, err := historyAt(cacheDir, repository)
	if err != nil {
		return nil, err
	}
	err = h.locked(ctx, func() error {
		var missing []string
		for _, c := range commits {
			if c != "" && !h.has(c) {
				missing = append(missing, c)
			}
		}
		if len(missing) == 0 {
			return nil
		}
		if err := h.fetchCommits(ctx, repository, missing); err != nil {
			return fmt.Errorf("fetch the history of %s up to %s: %w", h.shown, strings.Join(shortAll(missing), ", "), err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// historyAt is the history of repository in the cache under cacheDir
// ("" = the user cache folder), whether or not anything was fetched into
// it yet.
func historyAt(cacheDir, repository string) (*History, error) {
	c, err := openCache(cacheDir, nil)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(redact.Strip(repository)))
	key := historyPrefix + hex.EncodeToString(sum[:8])
	return &History{c: c, key: key, dir: filepath.Join(c.root, key), shown: redact.URL(repository)}, nil
}

// locked runs fn under the history's cache lock, the store open.
func (h *History) locked(ctx context.Context, fn func() error) error {
	unlock, err := h.c.lock(ctx, h.key)
	if err != nil {
		return err
	}
	defer unlock()
	for _, d := range []string{"objects/pack", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(h.dir, d), 0o755); err != nil {
			return fmt.Errorf("history cache %s: %w", h.dir, err)
		}
	}
	// Scratch a killed fetch left: nobody else holds the lock.
	stale, _ := filetree.Glob(h.dir, tmpPrefix+"*")
	for _, d := range stale {
		os.RemoveAll(d)
	}
	h.open()
	return fn()
}

// open (re)opens the store, so that it sees packs fetched since.
func (h *History) open() {
	if h.s != nil {
		h.s.Close()
	}
	h.s = filesystem.NewStorageWithOptions(osfs.New(h.dir), gitcache.NewObjectLRU(32*gitcache.MiByte), filesystem.Options{KeepDescriptors: true})
	h.ancestry = nil
}

func (h *History) store() *filesystem.Storage {
	if h.s == nil {
		h.open()
	}
	return h.s
}

func shortAll(commits []string) []string {
	out := make([]string, len(commits))
	for i, c := range commits {
		out[i] = gitformat.Short(c)
	}
	return out
}

// has says whether the history holds commit (a full hash).
func (h *History) has(commit string) bool {
	if !fullHash.MatchString(commit) {
		return false
	}
	_, err := object.GetCommit(h.store(), plumbing.NewHash(commit))
	return err == nil
}

// IsAncestor says whether commit is in the history of pin (commit itself
// included). A commit the history does not know is not an ancestor.
func (h *History) IsAncestor(ctx context.Context, commit, pin string) (bool, error) {
	if !h.has(commit) {
		return false, nil
	}
	in, err := h.ancestors(ctx, pin)
	if err != nil {
		return false, err
	}
	return in[plumbing.NewHash(commit)], nil
}

// ancestors is the set of commits in pin's history, pin included.
func (h *History) ancestors(ctx context.Context, pin string) (map[plumbing.Hash]bool, error) {
	if !h.has(pin) {
		return nil, h.noCommit(pin)
	}
	tip := plumbing.NewHash(pin)
	if in, ok := h.ancestry[tip]; ok {
		return in, nil
	}
	in := map[plumbing.Hash]bool{tip: true}
	todo := []plumbing.Hash{tip}
	for len(todo) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := h.commit(todo[len(todo)-1])
		todo = todo[:len(todo)-1]
		if err != nil {
			return nil, err
		}
		for _, p := range c.ParentHashes {
			if !in[p] {
				in[p] = true
				todo = append(todo, p)
			}
		}
	}
	if h.ancestry == nil {
		h.ancestry = map[plumbing.Hash]map[plumbing.Hash]bool{}
	}
	h.ancestry[tip] = in
	return in, nil
}

func (h *History) noCommit(commit string) error {
	return fmt.Errorf("the history of %s has no commit %s", h.shown, gitformat.Short(commit))
}

// commit reads a commit of the history; a history fetched whole holds
// every parent, so a missing one is a damaged cache.
func (h *History) commit(hash plumbing.Hash) (*object.Commit, error) {
	c, err := object.GetCommit(h.store(), hash)
	if err != nil {
		return nil, fmt.Errorf("read commit %s in the history of %s (%s): %w", gitformat.Short(hash.String()), h.shown, h.dir, err)
	}
	return c, nil
}

// Close releases the store's open files.
func (h *History) Close() error {
	if h.s == nil {
		return nil
	}
	err := h.s.Close()
	h.s = nil
	return err
}
