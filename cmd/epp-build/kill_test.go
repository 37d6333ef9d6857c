package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/killpoint"
	"github.com/epp-build/epp-build/internal/outdir"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killTries is how many runs TestKillAtAnyInstantIsRepaired kills at a
// random instant; each kill point named below is also hit a few times,
// since a random instant rarely falls between two renames.
const killTries = 60

var killPoints = []string{"pack-index-renamed", "staging-built"}

// TestKillAtAnyInstantIsRepaired: apply is SIGKILLed at random instants
// (and at the kill points), fresh and in place, alternating two series;
// after each kill a plain apply of a series succeeds and leaves exactly
// that series, clean, with nothing left beside --out. In about half the
// random tries that apply races the killed one: it starts once the killed
// run holds the lock on --out (or has ended), so it ends last, and what it
// leaves is its own series, never a mix of the two.
// EPP_BUILD_KILL_SEED repeats a run.
func TestKillAtAnyInstantIsRepaired(t *testing.T) {
	start := time.Now()
	u := newUpstream(t)
	cache := t.TempDir()
	series := []string{
		recipeDir(t, u, "v1.0.0", u.commit, map[string][]byte{"0001-docs.patch": []byte(docsPatch)}, "0001-docs.patch"),
		protectedSeries(t, u),
	}
	// The head each series makes, from a run nobody kills; it also fills
	// the upstream cache so that every try is quick.
	heads := make([]string, len(series))
	var took time.Duration
	for i, dir := range series {
		ref := filepath.Join(t.TempDir(), "ref")
		t0 := time.Now()
		r := run(t, cache, "apply", "--recipe", dir, "--out", ref)
		took = max(took, time.Since(t0))
		require.Equal(t, 0, r.code, r.stderr)
		heads[i] = gitfixture.Git(t, ref, "rev-parse", "HEAD")
	}

	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("EPP_BUILD_KILL_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed %d (EPP_BUILD_KILL_SEED=%d repeats this run); an apply takes %v", seed, seed, took)
	rng := rand.New(rand.NewPCG(seed, seed))

	out := filepath.Join(t.TempDir(), "out")
	tries := killTries + 3*len(killPoints)*2
	raced, waited := 0, 0
	for try := range tries {
		s := rng.IntN(len(series))
		cold := rng.IntN(3) == 0
		point := ""
		if try >= killTries {
			point = killPoints[(try-killTries)%len(killPoints)]
			cold = (try-killTries)/len(killPoints)%2 == 0
		}
		if cold {
			require.NoError(t, os.RemoveAll(out))
		}
		var after time.Duration
		if point == "" {
			after = time.Duration(rng.Int64N(int64(took) * 6 / 5))
		}
		race := point == "" && rng.IntN(2) == 0
		next := rng.IntN(len(series))
		var r result
		if race {
			r = racedApply(t, cache, series[s], series[next], out, after)
		} else {
			killedApply(t, cache, series[s], out, point, after)
			r = applyWithin(t, cache, series[next], out, nil)
		}
		s = next
		if race {
			raced++
			if strings.Contains(r.stderr, "waiting for another epp-build apply") {
				waited++
			}
		}
		require.Equal(t, 0, r.code, "try %d (kill point %q, after %v, cold %v, raced %v; seed %d): %s", try, point, after, cold, race, seed, r.stderr)
		if point == "staging-built" && cold {
			assert.Contains(t, r.stderr, "removed 1 staging folder(s) an interrupted apply left beside "+out, "try %d", try)
		}
		assertExactly(t, out, heads[s], "try %d (kill point %q, after %v, cold %v, raced %v; seed %d)", try, point, after, cold, race, seed)
		if t.Failed() {
			return
		}
	}
	t.Logf("%d tries in %v; %d raced by a second apply, %d of which waited for the killed one", tries, time.Since(start).Round(time.Millisecond), raced, waited)
}

// killedApply starts apply into out and kills it after the given time,
// or lets it kill itself at point.
func killedApply(t *testing.T, cache, recipe, out, point string, after time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "apply", "--recipe", recipe, "--out", out, "-q")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "GOPROXY=off", killpoint.Var+"="+point)
	require.NoError(t, cmd.Start())
	if point == "" {
		time.Sleep(after)
		_ = cmd.Process.Kill()
	}
	_ = cmd.Wait()
	require.NoError(t, ctx.Err(), "a killed apply hung")
}

// racedApply starts apply of killed into out and kills it after the given
// time; once that run holds the lock on out (or has ended) it starts apply
// of survivor into the same out, which waits for the lock and so writes
// last, and returns how the survivor ended.
func racedApply(t *testing.T, cache, killed, survivor, out string, after time.Duration) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "apply", "--recipe", killed, "--out", out, "-q")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "GOPROXY=off")
	require.NoError(t, cmd.Start())
	ended := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(ended)
	}()
	kill := time.AfterFunc(after, func() { _ = cmd.Process.Kill() })
	defer kill.Stop()
	pid := strconv.Itoa(cmd.Process.Pid) + "\n"
	for holds := false; !holds; {
		select {
		case <-ended:
			holds = true
		case <-ctx.Done():
			t.Fatalf("the killed apply hung before taking the lock on %s", out)
		case <-time.After(2 * time.Millisecond):
			data, _ := os.ReadFile(outdir.LockPath(out))
			holds = string(data) == pid
		}
	}
	r := applyWithin(t, cache, survivor, out, nil)
	select {
	case <-ended:
	case <-ctx.Done():
		t.Fatalf("the killed apply hung")
	}
	return r
}

// applyWithin runs apply with a deadline of its own, so that a hang fails
// the test instead of waiting for the test timeout.
func applyWithin(t *testing.T, cache, recipe, out string, env []string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "apply", "--recipe", recipe, "--out", out)
	cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+cache, "GOPROXY=off"), env...)
	cmd.WaitDelay = 5 * time.Second // a child holding the pipes open does not hold the test
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "apply hung: %s", stderr.String())
	code := 0
	if err != nil {
		code = cmd.ProcessState.ExitCode()
	}
	return result{stdout.String(), stderr.String(), code}
}

// assertExactly checks that out holds the series whose head is head and
// nothing else: clean, its record and HEAD agreeing, its objects whole,
// and nothing of a run beside it.
func assertExactly(t *testing.T, out, head string, msgAndArgs ...any) {
	t.Helper()
	assert.Equal(t, head, gitfixture.Git(t, out, "rev-parse", "HEAD"), msgAndArgs...)
	assert.Empty(t, gitfixture.Git(t, out, "status", "--porcelain", "--untracked-files=all", "--ignored"), msgAndArgs...)
	var rec struct{ Head string }
	data, err := os.ReadFile(filepath.Join(out, ".git", "epp-build", "applied.json"))
	require.NoError(t, err, msgAndArgs...)
	require.NoError(t, json.Unmarshal(data, &rec), msgAndArgs...)
	assert.Equal(t, head, rec.Head, msgAndArgs...)
	assert.NoFileExists(t, filepath.Join(out, ".git", "epp-build", "reapply.json"), msgAndArgs...)
	packs, _ := filepath.Glob(filepath.Join(out, ".git", "objects", "pack", "*"))
	for _, p := range packs {
		ext := filepath.Ext(p)
		assert.True(t, ext == ".idx" || ext == ".pack", "only packs and their indexes: %s", p)
		other := map[string]string{".idx": ".pack", ".pack": ".idx"}[ext]
		assert.FileExists(t, p[:len(p)-len(ext)]+other, msgAndArgs...)
	}
	entries, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing beside --out: %v", entries)
}
