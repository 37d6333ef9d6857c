package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A rebase started with --dir and stopped: status and --abort find it
// without --dir and say where they found it.
func TestStatusAndResumeFindTheStoppedRebaseWithoutDir(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)
	work := filepath.Join(t.TempDir(), "rebase")

	r := run(t, cache, "--patches", patches, "status")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "no rebase in progress")

	r = run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--dir", work)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)

	r = run(t, cache, "--patches", patches, "status")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "rebase of v9 as v10 onto v2 in "+work)
	assert.Contains(t, r.stdout, "stopped at a conflict in 0002-Route-b.patch (marked: b.txt)")
	assert.Contains(t, r.stdout, "epp-build rebase --continue --dir "+work)

	r = run(t, cache, "--patches", patches, "status", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		Rebase struct {
			Dir, StoppedAt, Reason string
			Done, Total            int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	assert.Equal(t, work, rep.Rebase.Dir)
	assert.Equal(t, "0002-Route-b.patch", rep.Rebase.StoppedAt)
	assert.Equal(t, "conflict", rep.Rebase.Reason)
	assert.Equal(t, 1, rep.Rebase.Done)
	assert.Equal(t, 4, rep.Rebase.Total)

	r = run(t, cache, "--patches", patches, "rebase", "--abort")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "found the stopped rebase in "+work+" (the --dir the rebase was started with")
	assert.NoDirExists(t, work)
	r = run(t, cache, "--patches", patches, "rebase", "--continue")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "no rebase in progress for "+patches)
}

// status --out says whether an applied tree is current for its recipe.
func TestStatusSaysWhetherATreeIsCurrent(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	dir := protectedSeries(t, u)
	out := filepath.Join(t.TempDir(), "out")
	r := run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)

	r = run(t, cache, "--patches", filepath.Dir(dir), "status", "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "tree "+out+": current for v9.9.9")

	changed := strings.Replace(mainPatch, `+	println("dynamo")`, `+	println("dynamo!")`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "0002-main.patch"), []byte(changed), 0o644))
	r = run(t, cache, "--patches", filepath.Dir(dir), "status", "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "tree "+out+": not current for v9.9.9")
	assert.Contains(t, r.stdout, "patch 0002-main.patch changed")
}

// A failing --exec command stops the rebase with exit 6; status names
// the command and the way on.
func TestRebaseExecFailureStopsAndStatusSaysSo(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)

	r := run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--exec", "echo checking >&2; exit 3")
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "checking\n", "the command's output is on stderr")
	assert.Contains(t, r.stderr, `--exec "echo checking >&2; exit 3" failed after 0001-Route-a.patch: exit status 3`)

	r = run(t, cache, "--patches", patches, "status")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `stopped: --exec "echo checking >&2; exit 3" failed after 0001-Route-a.patch`)
	assert.Contains(t, r.stdout, "epp-build rebase --continue --dir ")

	r = run(t, cache, "--patches", patches, "rebase", "--continue", "--exec", "true")
	assert.Equal(t, 2, r.code, "--exec belongs to the start")
	r = run(t, cache, "--patches", patches, "rebase", "--abort")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "found the stopped rebase in ")
}
