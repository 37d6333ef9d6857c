package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// A local `go build ./cmd/epp` leaves the binary at the applied tree's
// root; git does not see it as an untracked change.
func TestApplyLeavesTheLocalBuildsBinaryOutOfGitStatus(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"}})
	out := filepath.Join(t.TempDir(), "gaie")
	r := run(t, cache, "--patches", patches, "apply", "--version", "v9", "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, os.WriteFile(filepath.Join(out, "epp"), []byte("\x7fELF"), 0o755))
	assert.Empty(t, gitfixture.Git(t, out, "status", "--porcelain"))
}
