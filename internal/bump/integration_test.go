//go:build integration

package bump_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/bump"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/review"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/vulns"
	"github.com/epp-build/epp-build/internal/vulns/vulnstest"
)

// The called finding the test fixes: golang.org/x/text v0.25.0, which the
// v0.7.0 EPP calls, is fixed for it from v0.39.0 on (pinned database).
const (
	finding   = "GO-2026-5970"
	textMod   = "golang.org/x/text"
	textFixed = "v0.39.0"
)

// TestBumpFixesACalledFindingOfV070 runs the maintenance loop on the
// v0.7.0 line, GAIE from the module proxy, against the pinned database:
// --fix-called --dry-run plans the fix of a called finding and writes
// nothing; the bump of that module type-checks every package of the tree
// with its tests (or bump would refuse) and writes one patch; check and
// lint pass on the written series; the line's own unit tests of its
// body-based router pass; a re-scan no longer reports the finding.
// Measured on 2 shared cores with a warm module cache: 7.3 min in all
// before the unit tests were added; the plan's apply and scan 4.5 min, the
// bump 13 s with a warm Go build cache (its type-check of 77 packages with
// their tests took 10 min cold on a loaded machine), check and lint under
// 1 s, the re-scan 2.5 min.
func TestBumpFixesACalledFindingOfV070(t *testing.T) {
	db := vulnstest.VulnDB(t)
	t.Setenv("GIT_AUTHOR_NAME", "Ada Maintainer")
	t.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
	patches := testutil.CopyRecipeSet(t, filepath.Join("..", ".."))
	ctx, cancel := context.WithTimeout(context.Background(), 80*time.Minute)
	defer cancel()
	opt := apply.Options{Fetcher: apply.Fetcher{Kind: source.GoProxy}}
	load := func() *recipe.Recipe {
		t.Helper()
		r, err := recipe.LoadVersion(patches, "v0.7.0")
		require.NoError(t, err)
		return r
	}
	timed := func(what string, start time.Time) { t.Logf("%s: %s", what, time.Since(start).Round(time.Second)) }
	dir := filepath.Join(patches, "v0.7.0")
	before := folderFiles(t, dir)

	start := time.Now()
	res, err := bump.Run(ctx, bump.Request{Recipe: load(), Apply: opt, FixCalled: true, DryRun: true, DB: db.URL})
	require.NoError(t, err)
	timed("bump --fix-called --dry-run (apply, scan, plan)", start)
	assert.False(t, res.Written)
	assert.Equal(t, before, folderFiles(t, dir), "a dry run wrote into the version folder")
	i := slices.IndexFunc(res.Plan.Bumps, func(b bump.Bump) bool { return b.Module == textMod })
	require.GreaterOrEqual(t, i, 0, "the plan does not raise %s: %+v", textMod, res.Plan)
	assert.Equal(t, bump.Bump{Module: textMod, From: "v0.25.0", To: textFixed, Fixes: []string{finding}}, res.Plan.Bumps[i])
	if assert.NotNil(t, res.Proposed, "the standard library of the Go at hand has called findings") {
		assert.True(t, strings.HasPrefix(res.Proposed.To, "go1."), res.Proposed.To)
	}
	t.Logf("plan: %+v; proposed toolchain %+v", res.Plan, res.Proposed)

	start = time.Now()
	res, err = bump.Run(ctx, bump.Request{Recipe: load(), Apply: opt,
		Modules: []module.Version{{Path: textMod, Version: textFixed}}, Fixes: []string{finding}})
	require.NoError(t, err)
	timed("bump "+textMod+"@"+textFixed+" (apply, go get, tidy, type-check, write)", start)
	require.True(t, res.Written)
	require.NotNil(t, res.TypeCheck)
	assert.NotEmpty(t, res.TypeCheck.Packages)
	t.Log(res.TypeCheck)
	assert.Equal(t, "0006-deps-bump-golang.org-x-text-to-v0.39.0.patch", res.Patch)
	data, err := os.ReadFile(filepath.Join(dir, res.Patch))
	require.NoError(t, err)
	assert.Contains(t, string(data), "Subject: deps: bump "+textMod+" to "+textFixed+"\n")
	assert.Contains(t, string(data), "\nFixes: "+finding+"\n")
	assert.Contains(t, string(data), "+\t"+textMod+" "+textFixed)

	start = time.Now()
	r := load()
	_, err = apply.Gate(ctx, r, opt, false)
	require.NoError(t, err, "check")
	problems, err := review.RunLint(ctx, review.LintRequest{Root: patches, Versions: []string{"v0.7.0"}})
	require.NoError(t, err, "lint")
	for _, p := range problems {
		assert.True(t, p.Notice, "lint: %s %s: %s", p.Version, p.Patch, p.Message)
	}
	timed("check and lint", start)

	// The line's own unit tests still pass on the bumped modules: those of
	// its body-based router, whose gRPC server links x/net's HTTP/2 and so
	// the raised golang.org/x/text.
	start = time.Now()
	applied, err := apply.Recipe(ctx, r, filepath.Join(t.TempDir(), "tree"), opt)
	require.NoError(t, err)
	unit := exec.CommandContext(ctx, "go", "test", "./pkg/bbr/...")
	unit.Dir = applied.Dir
	out, err := unit.CombinedOutput()
	require.NoError(t, err, "the line's unit tests fail after the bump:\n%s", out)
	timed("go test ./pkg/bbr/... in the bumped tree", start)

	start = time.Now()
	rep, err := vulns.Scan(ctx, vulns.Request{Recipes: []*recipe.Recipe{r}, Apply: opt, DB: db.URL})
	require.NoError(t, err)
	timed("re-scan", start)
	for _, f := range rep.Targets[0].Findings {
		assert.NotEqual(t, finding, f.ID, "the re-scan still reports %s (%s@%s, %s)", f.ID, f.Module, f.Version, f.Level)
		if f.Module == textMod {
			assert.Equal(t, textFixed, f.Version)
		}
	}
}

// folderFiles maps each file of dir to its content.
func folderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = string(data)
	}
	return out
}
