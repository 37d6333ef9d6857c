//go:build integration

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
)

// Merges of real GAIE pins from the Go module proxy (integration tier).

// TestRebaseOfV070OntoGAIEV100MarksNoMoreThanGit rebases Dynamo v0.7.0's
// series (GAIE v0.5.1) onto GAIE v1.0.0, the backport the release desk
// tried. At every stop, each conflicted file is held against `git
// merge-file --diff3` on the same base, ours and theirs: no more lines
// between markers than git's, and taking either side of every conflict
// leaves Go source the compiler accepts as a lone file (compilesAlone).
// The stop is then resolved with the patch's side (a .rej file deleted)
// and the rebase goes on to its end, where each patch merged cleanly
// holds what git merge-file makes of it. (Since 0004's main.go hunk
// gained the routers' close after runner.Run, it applies at an offset on
// v1.0.0 and no patch needs a clean merge there; the clean merges are
// held against git by diff3's property test and backport's own tests.)
func TestRebaseOfV070OntoGAIEV100MarksNoMoreThanGit(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches GAIE v0.5.1 and v1.0.0 from the module proxy")
	}
	testenv.Tool(t, "git", "the merges are compared with git merge-file")
	proxy := os.Getenv("GOPROXY")
	if proxy == "" || proxy == "off" {
		proxy = "https://proxy.golang.org"
	}
	requireProxyAnswers(t, []string{"rebase --onto v1.0.0 x"})
	patches := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(patches, "v0.7.0"), os.DirFS(filepath.Join("..", "..", "patches", "v0.7.0"))))
	cache := os.Getenv("XDG_CACHE_HOME") // share the upstream cache with the other tests of this run
	if cache == "" {
		cache = t.TempDir()
	}
	env := []string{"GOPROXY=" + proxy, "GONOSUMDB=sigs.k8s.io/gateway-api-inference-extension"}
	work := filepath.Join(t.TempDir(), "rebase")

	r := runEnv(t, cache, env, "--patches", patches, "rebase", "--version", "v0.7.0", "--onto", "v1.0.0", "--as", "v1.0.0-dyn", "--dir", work,
		// Taking the patch's side at every stop leaves a tree that does
		// not compile against v1.0.0: the merges are what is measured.
		"--no-verify")
	stops, ours, git := 0, 0, 0
	for r.code == 6 {
		stops++
		require.Less(t, stops, 10, r.stderr)
		patch := stoppedAt.FindStringSubmatch(r.stderr)
		marked := markedIn.FindStringSubmatch(r.stderr)
		require.NotNil(t, patch, r.stderr)
		require.NotNil(t, marked, r.stderr)
		p := readRebasePatch(t, work, patch[1])
		for _, name := range strings.Split(marked[1], ", ") {
			if strings.HasSuffix(name, ".rej") {
				require.NoError(t, os.Remove(filepath.Join(work, name)))
				continue
			}
			got := readText(t, filepath.Join(work, name))
			base, mine, theirs := mergeInputs(t, work, patch[1], p, name)
			want := gitMergeFile(t, base, mine, theirs)
			ours += markedLines(got)
			git += markedLines(want)
			assert.LessOrEqual(t, markedLines(got), markedLines(want), "%s in %s: more lines between markers than git merge-file's:\n%s\ngit:\n%s", name, patch[1], got, want)
			for _, side := range []int{0, 2} {
				resolved := takeSide(got, side)
				if strings.HasSuffix(name, ".go") {
					assert.NoError(t, compilesAlone(name, resolved), "%s in %s with side %d taken:\n%s", name, patch[1], side, resolved)
				}
			}
			require.NoError(t, os.WriteFile(filepath.Join(work, name), []byte(takeSide(got, 2)), 0o644))
		}
		r = runEnv(t, cache, env, "--patches", patches, "rebase", "--continue", "--dir", work)
	}
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Positive(t, stops, "the backport has conflicts to compare")
	merged := regexp.MustCompile(`(?m)^(\S+\.patch)\s+applied by three-way merge$`).FindAllStringSubmatch(r.stdout, -1)
	for _, m := range merged {
		cleanMergeIsGits(t, work, m[1])
	}
	t.Logf("%d stops; %d lines between markers, git merge-file %d", stops, ours, git)
	assert.FileExists(t, filepath.Join(patches, "v1.0.0-dyn", "recipe.yaml"))
}
