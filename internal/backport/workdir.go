package backport

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/source"
)

// DefaultDir is the work tree of a rebase when none is named: one per
// patches folder, under the user cache folder, so it never shows up in
// the repository and --continue, --skip and --abort find it again.
func DefaultDir(patchesRoot string) (string, error) {
	abs, err := filepath.Abs(patchesRoot)
	if err != nil {
		return "", err
	}
	cache, err := source.CacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "rebase", hex.EncodeToString(sum[:6])), nil
}
