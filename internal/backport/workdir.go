package backport

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/source"
)

// DefaultDir is the work tree of a rebase when none is named: one per
// patches folder, under the user cache folder, so it never shows up in
// the repository and --continue, --skip and --abort find it again.
func DefaultDir(patchesRoot string) (string, error) {
	return defaultDirFor(patchesRoot, "rebase")
}

// defaultDirFor is the default work tree of a kind of operation (rebase,
// pick) for a patches folder.
func defaultDirFor(patchesRoot, kind string) (string, error) {
	abs, err := filepath.Abs(patchesRoot)
	if err != nil {
		return "", err
	}
	cache, err := source.CacheDir()
	if err != nil {
		return "", err
	}
	parent := filepath.Join(cache, kind)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(parent, hex.EncodeToString(sum[:6])), nil
}

// ClearFinished removes the default work tree dir when it holds no rebase
// in progress (a finished one, kept for inspection), so the next rebase can
// use it; a rebase in progress is left alone.
func ClearFinished(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", stateFile)); err == nil {
		return nil
	}
	return os.RemoveAll(dir)
}
