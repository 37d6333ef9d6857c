package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/dirswap"
	"github.com/epp-build/epp-build/internal/killpoint"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seriesKills is how many times each command that writes a version
// folder is killed in TestKillAtEveryWrite*.
const seriesKills = 100

// killAtEveryWrite runs cmd killed at its first write to a version
// folder, then its second, and so on until a run ends by itself, and
// again from the first, until it was killed kills times. Before each run
// reset puts the fixture back (or not); after each, check looks at what
// the kill left. It returns how many runs ended by themselves.
func killAtEveryWrite(t *testing.T, kills int, cmd func(env []string) result, reset func(), check func(killed bool)) int {
	t.Helper()
	done, killed := 0, 0
	for n, runs := 1, 0; killed < kills; n++ {
		runs++
		require.Less(t, runs, 3*kills, "the runs are not killed: no write passes the kill point")
		reset()
		r := cmd([]string{killpoint.Var + "=" + dirswap.KillStep + "#" + strconv.Itoa(n)})
		switch r.code {
		case -1: // killed by the signal
			killed++
			check(true)
		case 0:
			done++
			check(false)
			n = 0
		default:
			t.Fatalf("killed at write %d: exit %d\n%s%s", n, r.code, r.stdout, r.stderr)
		}
	}
	require.NotZero(t, done, "no run got past its last write")
	return done
}

// leftovers are the writers' folders beside the versions.
func leftovers(t *testing.T, patches string) []string {
	t.Helper()
	entries, err := os.ReadDir(patches)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if dirswap.IsTemp(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// loads says the version folder is one the tool takes: its recipe loads
// and every patch it lists is there.
func loads(t *testing.T, patches, version string) {
	t.Helper()
	r, err := recipe.LoadVersion(patches, version)
	require.NoError(t, err)
	require.NoError(t, r.Validate())
}

// oneOf asserts the folder holds exactly one of the series given.
func oneOf(t *testing.T, dir string, series ...map[string]string) {
	t.Helper()
	got := relSnapshot(t, dir)
	for _, s := range series {
		if assert.ObjectsAreEqual(s, got) {
			return
		}
	}
	t.Fatalf("%s holds neither series: %v", dir, got)
}

func relSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p, data := range snapshot(t, dir) {
		rel, err := filepath.Rel(dir, p)
		require.NoError(t, err)
		out[rel] = data
	}
	return out
}

func restore(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(dir))
	for rel, data := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(data), 0o644))
	}
}

// TestKillAtEveryWriteOfASeriesEdit: series move is killed at every write
// it makes to the version folder. Moving the first of two independent
// patches to the end swaps them, so every run leaves one of two series:
// the folder always loads and holds one or the other, whole, and no
// folder a killed run left survives the next run.
func TestKillAtEveryWriteOfASeriesEdit(t *testing.T) {
	start := time.Now()
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	dir := seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{
		{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"},
		{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"},
	})
	a := relSnapshot(t, dir)
	r := run(t, cache, "--patches", patches, "series", "move", "--version", "v9", "1", "--to", "2")
	require.Equal(t, 0, r.code, r.stderr)
	b := relSnapshot(t, dir)
	require.NotEqual(t, a, b)

	done := killAtEveryWrite(t, seriesKills, func(env []string) result {
		return runEnv(t, cache, env, "--patches", patches, "series", "move", "--version", "v9", "1", "--to", "2")
	}, func() {}, func(killed bool) {
		loads(t, patches, "v9")
		oneOf(t, dir, a, b)
		if killed {
			assert.LessOrEqual(t, len(leftovers(t, patches)), 1, "a run removes what the one before it left")
		} else {
			assert.Empty(t, leftovers(t, patches))
		}
	})
	t.Logf("%d kills, %d runs to the end, in %v", seriesKills, done, time.Since(start))
}

// TestKillAtEveryWriteOfARebase: rebase in place and with --as, killed at
// every write of the series: the version holds the old series or the
// rebased one, and --as leaves no version or a whole one.
func TestKillAtEveryWriteOfARebase(t *testing.T) {
	start := time.Now()
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	dir := seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{
		{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"},
		{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"},
	})
	old := relSnapshot(t, dir)
	work := filepath.Join(t.TempDir(), "rebase")
	rebase := func(env []string, args ...string) result {
		return runEnv(t, cache, env, append([]string{"--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--dir", work}, args...)...)
	}
	r := rebase(nil)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	rebased := relSnapshot(t, dir)
	require.NotEqual(t, old, rebased)
	reset := func() {
		restore(t, dir, old)
		require.NoError(t, os.RemoveAll(work))
		require.NoError(t, os.RemoveAll(filepath.Join(patches, "v10")))
	}
	done := killAtEveryWrite(t, seriesKills/2, func(env []string) result { return rebase(env) }, reset, func(killed bool) {
		loads(t, patches, "v9")
		oneOf(t, dir, old, rebased)
		if !killed {
			assert.Equal(t, rebased, relSnapshot(t, dir))
			assert.Empty(t, leftovers(t, patches))
		}
	})

	reset()
	r = rebase(nil, "--as", "v10")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	v10 := filepath.Join(patches, "v10")
	asNew := relSnapshot(t, v10)
	done += killAtEveryWrite(t, seriesKills/2, func(env []string) result { return rebase(env, "--as", "v10") }, reset, func(killed bool) {
		assert.Equal(t, old, relSnapshot(t, dir), "--as leaves the old version as it is")
		if _, err := os.Stat(v10); err == nil {
			loads(t, patches, "v10")
			assert.Equal(t, asNew, relSnapshot(t, v10))
		} else {
			require.ErrorIs(t, err, os.ErrNotExist)
		}
		versions, err := recipe.Versions(patches)
		require.NoError(t, err)
		assert.NotContains(t, versions, "", "a writer's folder is no version")
		for _, v := range versions {
			assert.Contains(t, []string{"v9", "v10"}, v)
		}
		// The next writer removes what a killed one left.
		if len(leftovers(t, patches)) > 0 {
			r := run(t, cache, "--patches", patches, "series", "reword", "--version", "v9", "1", "--body", "Routes a.")
			require.Equal(t, 0, r.code, r.stdout+r.stderr)
			assert.Empty(t, leftovers(t, patches))
		}
	})
	t.Logf("%d kills, %d runs to the end, in %v", seriesKills, done, time.Since(start))
}

// TestKillAtEveryWriteOfAPick: pick into an existing version, killed at
// every write of its series: the version holds the series without the
// pick or with it.
func TestKillAtEveryWriteOfAPick(t *testing.T) {
	start := time.Now()
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	dir := seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{
		{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"},
	})
	// The pick is a patch of another version on the same pin.
	other := seriesOn(t, u.url, u.v1, patches, cache, "v8", []edit{
		{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"},
	})
	pickFile := filepath.Join(t.TempDir(), "0001-Route-d.patch")
	data, err := os.ReadFile(filepath.Join(other, "0001-Route-d.patch"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(pickFile, data, 0o644))
	require.NoError(t, os.RemoveAll(other))

	old := relSnapshot(t, dir)
	work := filepath.Join(t.TempDir(), "pick")
	pick := func(env []string) result {
		return runEnv(t, cache, env, "--patches", patches, "pick", "--version", "v9", "--dir", work, "--reason", "test", "--upstream-link", "https://example.invalid/pr/1", pickFile)
	}
	r := pick(nil)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	picked := relSnapshot(t, dir)
	require.NotEqual(t, old, picked)
	done := killAtEveryWrite(t, seriesKills, pick, func() {
		restore(t, dir, old)
		require.NoError(t, os.RemoveAll(work))
	}, func(killed bool) {
		loads(t, patches, "v9")
		oneOf(t, dir, old, picked)
		if killed {
			assert.LessOrEqual(t, len(leftovers(t, patches)), 1, "a run removes what the one before it left")
		} else {
			assert.Empty(t, leftovers(t, patches))
		}
	})
	t.Logf("%d kills, %d runs to the end, in %v", seriesKills, done, time.Since(start))
}
