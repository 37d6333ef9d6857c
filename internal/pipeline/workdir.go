package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// workDirFor gives a stable folder per tree: the same paths on every run
// keep Go's and BuildKit's caches warm.
func workDirFor(cacheDir, tree string) (string, error) {
	abs, err := filepath.Abs(tree)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cacheDir, "work", hex.EncodeToString(sum[:])[:16]), nil
}
