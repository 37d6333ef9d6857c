package apply

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// The binaries a local `go build ./cmd/epp` or `./cmd/bbr` leaves at the
// root of an applied tree are not untracked changes, after the first
// apply and after one that finds the tree already applied; the same names
// deeper in the tree are not hidden.
func TestApplyExcludesTheBinariesALocalBuildLeaves(t *testing.T) {
	r, _ := seriesOn(t)
	opt := Options{Fetcher: Fetcher{Kind: source.Git, CacheDir: t.TempDir()}}
	out := filepath.Join(t.TempDir(), "tree")
	for _, run := range []string{"first apply", "already applied"} {
		res, err := Run(context.Background(), r, out, false, opt)
		require.NoError(t, err, run)
		assert.Equal(t, run == "already applied", res.Outcome.AlreadyApplied, run)
		for _, name := range []string{"epp", "bbr"} {
			require.NoError(t, os.WriteFile(filepath.Join(out, name), []byte("\x7fELF"), 0o755))
		}
		assert.Empty(t, gitfixture.Git(t, out, "status", "--porcelain"), run)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(out, "cmd"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, "cmd", "epp"), []byte("source, not a build output"), 0o644))
	assert.Equal(t, "?? cmd/", gitfixture.Git(t, out, "status", "--porcelain"), "anchored at the root")

	exclude, err := os.ReadFile(filepath.Join(out, ".git", "info", "exclude"))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(exclude), "\n/epp\n"), "listed once however often apply runs")
}
