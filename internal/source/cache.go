package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/epp-build/epp-build/internal/filetree"
	"github.com/epp-build/epp-build/internal/redact"
)

// Layout of a cache entry folder.
const (
	entryFile   = "entry.json"
	gitDirName  = "git"
	blobsName   = "blobs"
	corruptMark = "CORRUPT"
	tmpPrefix   = ".tmp-"
)

// cache is CacheDir/upstream: one folder per entry, one lock file per key.
type cache struct {
	root   string
	notice func(format string, args ...any)
}

func openCache(dir string, notice func(string, ...any)) (*cache, error) {
	if dir == "" {
		d, err := CacheDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	root := filepath.Join(dir, "upstream")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("cache folder %s: %w", root, err)
	}
	return &cache{root: root, notice: notice}, nil
}

// builder fills tmp (an empty folder that becomes the entry) and returns the
// entry's metadata; it must honour ctx.
type builder func(ctx context.Context, tmp string) (*entryMeta, error)

// get returns the entry for key: the cached one when it verifies against
// want, otherwise a freshly built one. Concurrent callers, in this process or
// others, build each key once.
// lookup returns the valid entry for key, or nil when there is none (an
// invalid one is left for get to drop and rebuild).
func (c *cache) lookup(ctx context.Context, key string, want expectation) *Tree {
	dir := filepath.Join(c.root, key)
	if _, err := os.Lstat(dir); err != nil {
		return nil
	}
	unlock, err := c.lock(ctx, key)
	if err != nil {
		return nil
	}
	defer unlock()
	tree, err := loadEntry(dir, want)
	if err != nil {
		return nil
	}
	tree.Cached = true
	return tree
}

func (c *cache) get(ctx context.Context, key string, want expectation, build builder) (*Tree, error) {
	unlock, err := c.lock(ctx, key)
	if err != nil {
		return nil, err
	}
	defer unlock()

	dir := filepath.Join(c.root, key)
	if _, err := os.Lstat(dir); err == nil {
		tree, verr := loadEntry(dir, want)
		if verr == nil {
			tree.Cached = true
			return tree, nil
		}
		c.notice("cache entry %s is not usable (%s); dropping it and fetching again", dir, shortReason(verr))
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("drop cache entry %s: %w", dir, err)
		}
	}
	c.removeStaleTemps(key)

	tmp, err := os.MkdirTemp(c.root, tmpPrefix+key+"-")
	if err != nil {
		return nil, fmt.Errorf("cache folder %s: %w", c.root, err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	meta, err := build(ctx, tmp)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	meta.Fetched = time.Now().UTC().Truncate(time.Second)
	if err := writeEntryMeta(tmp, meta); err != nil {
		return nil, err
	}
	tree, err := loadEntry(tmp, want)
	if err != nil {
		return nil, fmt.Errorf("new cache entry for %s does not verify (a bug, please report it): %w", key, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("cache entry %s: %w", dir, err)
	}
	done = true
	return tree.at(dir), nil
}

// lock takes the per-key lock, waiting for another process that is building
// the same entry.
func (c *cache) lock(ctx context.Context, key string) (func(), error) {
	l := flock.New(filepath.Join(c.root, key+".lock"))
	ok, err := l.TryLockContext(ctx, 50*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("lock cache entry %s: %w", key, err)
	}
	if !ok {
		return nil, fmt.Errorf("lock cache entry %s: not acquired", key)
	}
	return func() { _ = l.Unlock() }, nil
}

// removeStaleTemps deletes half-built entries of key left by a killed
// process; holding the key's lock means nobody is building them now.
func (c *cache) removeStaleTemps(key string) {
	matches, _ := filetree.Glob(c.root, tmpPrefix+key+"-*")
	for _, m := range matches {
		os.RemoveAll(m)
	}
}

// dropEntry removes the entry folder dir under its key's lock.
func dropEntry(ctx context.Context, dir string) error {
	c := &cache{root: filepath.Dir(dir)}
	unlock, err := c.lock(ctx, filepath.Base(dir))
	if err != nil {
		return err
	}
	defer unlock()
	return os.RemoveAll(dir)
}

// markCorrupt records why an entry failed verification after Fetch handed
// it out, so the next Fetch drops it instead of trusting it.
func markCorrupt(dir string, reason error) {
	_ = os.WriteFile(filepath.Join(dir, corruptMark), []byte(reason.Error()+"\n"), 0o644)
}

// shortReason is an error as a notice shows it: one line, short, redacted.
func shortReason(err error) string { return redact.Excerpt([]byte(err.Error())) }
