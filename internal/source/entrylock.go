package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/epp-build/epp-build/internal/recipe"
)

// The upstream cache as `epp-build cache` sees it: UpstreamDir under the
// cache root, one folder per entry key, a lock file per key beside it, and
// half-built entries a killed fetch left.
const (
	UpstreamDir     = "upstream"
	EntryLockSuffix = ".lock"
)

// EntryKeys are the upstream cache entries a fetch of pin can use: its
// commit's git (or path) entry and, for a pin with a module, its module
// proxy entry. A C API pin is a git pin of its commit.
func EntryKeys(pin recipe.Upstream) []string {
	keys := []string{"git-" + pin.Commit}
	if pin.Module != "" && pin.ModuleVersion != "" && pin.ModuleHash != "" {
		key, _ := goProxyKey(pin)
		keys = append(keys, key)
	}
	return keys
}

// TempEntryKey is the key of a half-built entry's folder name, which
// only the key's lock holder may remove; ok is false for any other name.
func TempEntryKey(name string) (key string, ok bool) {
	rest, ok := strings.CutPrefix(name, tmpPrefix)
	if !ok {
		return "", false
	}
	// os.MkdirTemp's random part has no '-'; keys do ("git-<commit>").
	i := strings.LastIndex(rest, "-")
	if i <= 0 {
		return "", false
	}
	return rest[:i], true
}

// TryLockEntry takes the lock of the upstream entry key under cacheDir
// without waiting: ok is false while a fetch builds or checks that entry,
// or a checkout copies from it (Materialize holds it shared), so a prune
// passes the entry by rather than pulling it from under a running apply.
func TryLockEntry(cacheDir, key string) (unlock func(), ok bool, err error) {
	l := flock.New(filepath.Join(cacheDir, UpstreamDir, key+EntryLockSuffix))
	ok, err = l.TryLock()
	if err != nil {
		return nil, false, fmt.Errorf("lock cache entry %s: %w", key, err)
	}
	if !ok {
		_ = l.Close()
		return nil, false, nil
	}
	return func() { _ = l.Unlock() }, true, nil
}

// errEntryGone: the entry a Tree was read from was removed (by `cache
// prune`) between Fetch and Materialize.
var errEntryGone = errors.New("the cache entry was removed since it was fetched")

// materializeHeld is materialize while holding the entry's lock shared:
// fetches of other keys and other checkouts go on, but a prune, which
// locks exclusively, waits until the copy is done.
func (t *Tree) materializeHeld(ctx context.Context, dst string) error {
	unlock, err := t.holdEntry(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return t.materialize(ctx, dst)
}

// holdEntry locks the entry shared for a read of its files and checks it
// is still there (errEntryGone when a prune removed it).
func (t *Tree) holdEntry(ctx context.Context) (unlock func(), err error) {
	l := flock.New(t.dir + EntryLockSuffix)
	ok, err := l.TryRLockContext(ctx, 50*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("lock cache entry %s: %w", filepath.Base(t.dir), err)
	}
	if !ok {
		return nil, fmt.Errorf("lock cache entry %s: not acquired", filepath.Base(t.dir))
	}
	if _, err := os.Lstat(filepath.Join(t.dir, entryFile)); errors.Is(err, fs.ErrNotExist) {
		l.Unlock()
		return nil, errEntryGone
	}
	return func() { l.Unlock() }, nil
}
