package capi

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/epp-build/epp-build/internal/filetree"
	"github.com/epp-build/epp-build/internal/platform"
)

// TreeHash fingerprints the crate source under dir, leaving out cargo's
// output (target/) and version control data, so a rebuild is needed exactly
// when the source changes.
func TreeHash(dir string) (string, error) {
	h, err := filetree.Hash(dir, filetree.HashOptions{Skip: []string{"target", ".git"}})
	if err != nil {
		return "", fmt.Errorf("hash C API source %s: %w", dir, err)
	}
	return h, nil
}

// cacheKey identifies one built library: same source, crate, target and
// toolchain give the same key, so the cached library can be reused.
func cacheKey(tree, crate, library string, features []string, t platform.Platform, tc *Toolchain) string {
	h := sha256.New()
	fmt.Fprintf(h, "capi-v1\ntree=%s\ncrate=%s\nlib=%s\ntriple=%s\nrustc=%s\ncargo=%s\ncc=%s %s\n",
		tree, crate, library, t.RustTriple, tc.RustcVersion, tc.CargoVersion, tc.CC[t.RustTriple], tc.CCVersion[t.RustTriple])
	if len(features) > 0 {
		// Only with features, so the keys of existing entries stay.
		fmt.Fprintf(h, "features=%s\n", strings.Join(features, ","))
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}
