package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/dirswap"
	"github.com/epp-build/epp-build/internal/killpoint"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestATamperedStateFileIsRefusedWithExit4: a rebase state whose recipe
// folder is a user's folder outside --patches is refused input (exit 4),
// escaped in the message, and --abort removes neither that folder nor the
// work tree.
func TestATamperedStateFileIsRefusedWithExit4(t *testing.T) {
	cache := t.TempDir()
	patches := t.TempDir()
	victim := filepath.Join(t.TempDir(), "Documents")
	require.NoError(t, os.MkdirAll(victim, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(victim, "0001-mine.patch"), []byte("mine"), 0o644))
	work := filepath.Join(t.TempDir(), "rebase")
	state := filepath.Join(work, ".git", "epp-build", "rebase.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(state), 0o755))
	data, err := json.Marshal(map[string]any{
		"version": "Documents", "recipe": victim,
		"upstream": map[string]string{"repository": "https://example.com/gaie.git", "ref": "v2\x1b]0;x\a", "commit": strings.Repeat("ab", 20)},
		"patches":  []string{"0001-a.patch"}, "next": 0,
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(state, data, 0o644))
	for _, op := range []string{"--continue", "--abort"} {
		r := run(t, cache, "--patches", patches, "rebase", op, "--dir", work)
		assert.Equal(t, 4, r.code, op+": "+r.stdout+r.stderr)
		assert.Contains(t, r.stderr, "nothing it names was touched")
		assert.NotContains(t, r.stderr, "\x1b")
		assert.FileExists(t, filepath.Join(victim, "0001-mine.patch"))
		assert.FileExists(t, state)
	}
}

// TestAnEmptyDirLeftByAKilledStartDoesNotBlockARebase: a start killed
// before it wrote anything leaves an empty --dir; the next start uses it.
func TestAnEmptyDirLeftByAKilledStartDoesNotBlockARebase(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"}})
	work := filepath.Join(t.TempDir(), "rebase")
	require.NoError(t, os.Mkdir(work, 0o755))
	r := run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--dir", work)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.FileExists(t, filepath.Join(patches, "v10", "recipe.yaml"))

	// A --dir with anything in it is still the user's.
	other := filepath.Join(t.TempDir(), "mine")
	require.NoError(t, os.MkdirAll(other, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, "keep"), []byte("x"), 0o644))
	r = run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v11", "--dir", other)
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.FileExists(t, filepath.Join(other, "keep"))
}

// TestASecondRebaseCommandIsRefusedWhileOneRuns: while a --continue runs
// (held here in its read of the state), an --abort of the same rebase is
// refused at once, exit 1, naming the process, and removes nothing; once
// the first is gone (killed: the kernel drops its lock) the --abort goes
// on. Two such commands at once used to leave the rebase unfinishable.
func TestASecondRebaseCommandIsRefusedWhileOneRuns(t *testing.T) {
	cache := t.TempDir()
	patches := t.TempDir()
	work := filepath.Join(t.TempDir(), "rebase")
	state := filepath.Join(work, ".git", "epp-build", "rebase.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(state), 0o755))
	data, err := json.Marshal(map[string]any{
		"version": "v9", "recipe": filepath.Join(patches, "v9"),
		"upstream": map[string]string{"repository": "https://example.com/gaie.git", "ref": "v2", "commit": strings.Repeat("ab", 20)},
		"patches":  []string{"0001-a.patch"}, "next": 0, "conflict": "0001-a.patch",
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(state, data, 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first := exec.CommandContext(ctx, binary, "--patches", patches, "rebase", "--continue", "--dir", work)
	first.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "GOPROXY=off", killpoint.BlockVar+"=input-read")
	stderr, err := first.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, first.Start())
	lines := bufio.NewScanner(stderr)
	blocked := false
	for !blocked && lines.Scan() {
		blocked = strings.Contains(lines.Text(), "blocked at input-read")
	}
	require.True(t, blocked, "the first --continue never read its state")

	r := run(t, cache, "--patches", patches, "rebase", "--abort", "--dir", work)
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "another epp-build (pid "+strconv.Itoa(first.Process.Pid)+") is continuing this rebase")
	assert.FileExists(t, state)

	require.NoError(t, first.Process.Kill())
	_ = first.Wait()
	r = run(t, cache, "--patches", patches, "rebase", "--abort", "--dir", work)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.NoDirExists(t, work)
}

// TestAKilledRebaseStartDoesNotBlockTheNextStart: a start killed before
// it stopped or finished leaves its --dir without a state; the next start
// with that --dir removes it (the start recorded that it made it) and
// runs, and a --dir the user made is never taken.
func TestAKilledRebaseStartDoesNotBlockTheNextStart(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"}})
	work := filepath.Join(t.TempDir(), "rebase")
	args := []string{"--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--dir", work}
	r := runEnv(t, cache, []string{killpoint.Var + "=" + dirswap.KillStep + "#1"}, args...)
	require.Equal(t, -1, r.code, "killed: "+r.stdout+r.stderr)
	require.DirExists(t, work)
	r = run(t, cache, args...)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "removed "+work+": a rebase start that did not finish left it")
	assert.FileExists(t, filepath.Join(patches, "v10", "recipe.yaml"))
}
