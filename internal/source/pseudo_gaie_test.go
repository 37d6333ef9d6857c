//go:build integration

package source

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGAIEPseudoVersionsAsTheProxyNamesThem works out the module versions
// of every GAIE commit a shipped recipe pins, and of 1748e829, from a GAIE
// repository (a path or URL in EPP_BUILD_GAIE_REPO) and compares them with
// the versions the module proxy serves them at (DESIGN.md, sections 3 and 8).
func TestGAIEPseudoVersionsAsTheProxyNamesThem(t *testing.T) {
	repo := os.Getenv("EPP_BUILD_GAIE_REPO")
	if repo == "" {
		t.Skip("set EPP_BUILD_GAIE_REPO to a GAIE repository (its history and tags) to run this")
	}
	cache := t.TempDir()
	for commit, want := range map[string]string{
		lastEPPCommit: lastEPPVersion,
		"7c1f1994dbffb64036b0c22b8d6f7f9edb8d7c0c": "v0.0.0-20260603065144-7c1f1994dbff",
		"206d40dca75d387ed646c9b3cdb9e873c2197e38": "v0.0.0-20260416154104-206d40dca75d",
		"978c23bb96cce25f11cea2421523cb479026e2e9": "v0.5.1",
		"f316594a0ed4d78d7aed43f4bf066f410ed89b0f": "v1.2.1",
	} {
		v, ok, err := CommitModuleVersion(context.Background(), cache, repo, "sigs.k8s.io/gateway-api-inference-extension", commit, true)
		require.NoError(t, err, commit)
		require.True(t, ok)
		assert.Equal(t, want, v.Version, commit)
	}
}
