package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seriesFiles lists the patch files of a version folder and its recipe's
// patches list.
func seriesFiles(t *testing.T, dir string) ([]string, string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.patch"))
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	sort.Strings(names)
	text, err := os.ReadFile(filepath.Join(dir, "recipe.yaml"))
	require.NoError(t, err)
	return names, string(text)
}

// TestSeriesEditsKeepTheSeriesChecked rewords, moves, squashes and drops
// patches of a version; after each the series is what apply + export make
// (check passes) and lint is content.
func TestSeriesEditsKeepTheSeriesChecked(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	dir := seriesOnV1(t, u, patches, cache)
	checked := func(what string) {
		t.Helper()
		r := run(t, cache, "--patches", patches, "check", "--version", "v9")
		require.Equal(t, 0, r.code, what+": "+r.stdout+r.stderr)
		r = run(t, cache, "--patches", patches, "lint", "--version", "v9")
		require.Equal(t, 0, r.code, what+": "+r.stdout+r.stderr)
	}
	checked("before")

	// reword: the body's prose changes, the trailers stay, the name too.
	r := run(t, cache, "--patches", patches, "series", "reword", "--version", "v9", "2", "--body", "b is where Dynamo routes.")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	b, err := os.ReadFile(filepath.Join(dir, "0002-Route-b.patch"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "Subject: Route b\n\nb is where Dynamo routes.\n\nReason: test\n")
	assert.NotContains(t, string(b), "Why: the test series.")
	checked("reword --body")

	// A new subject renames the file, as format-patch would name it.
	r = run(t, cache, "--patches", patches, "series", "reword", "--version", "v9", "0002-Route-b.patch", "--subject", "Route b through Dynamo")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	names, text := seriesFiles(t, dir)
	assert.Equal(t, []string{"0001-Route-a.patch", "0002-Route-b-through-Dynamo.patch", "0003-Fix-c.patch", "0004-Route-d.patch"}, names)
	assert.Contains(t, text, "  - 0002-Route-b-through-Dynamo.patch\n")
	checked("reword --subject")

	// move: d goes first, the others are renumbered after it.
	r = run(t, cache, "--patches", patches, "series", "move", "--version", "v9", "0004", "--to", "1")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	names, text = seriesFiles(t, dir)
	assert.Equal(t, []string{"0001-Route-d.patch", "0002-Route-a.patch", "0003-Route-b-through-Dynamo.patch", "0004-Fix-c.patch"}, names)
	assert.Contains(t, text, "patches:\n  - 0001-Route-d.patch\n  - 0002-Route-a.patch\n  - 0003-Route-b-through-Dynamo.patch\n  - 0004-Fix-c.patch\n")
	checked("move")

	// squash: a and c fold into d, keeping d's message and every trailer.
	r = run(t, cache, "--patches", patches, "series", "squash", "--version", "v9", "1", "2", "4")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	names, _ = seriesFiles(t, dir)
	assert.Equal(t, []string{"0001-Route-d.patch", "0002-Route-b-through-Dynamo.patch"}, names)
	d, err := os.ReadFile(filepath.Join(dir, "0001-Route-d.patch"))
	require.NoError(t, err)
	for _, file := range []string{"a.txt", "c.txt", "d.txt"} {
		assert.Contains(t, string(d), "diff --git a/"+file+" b/"+file)
	}
	assert.Contains(t, string(d), "Subject: Route d\n")
	checked("squash")

	// drop: b goes, d stays.
	r = run(t, cache, "--patches", patches, "series", "drop", "--version", "v9", "0002")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	names, _ = seriesFiles(t, dir)
	assert.Equal(t, []string{"0001-Route-d.patch"}, names)
	checked("drop")
}

// TestSeriesMoveRefusesAnOrderThatDoesNotApply moves a patch before the
// one it builds on: exit 3, and the version folder is as it was.
func TestSeriesMoveRefusesAnOrderThatDoesNotApply(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	dir := seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{
		{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"},
		{"a.txt", "a = dynamo\n", "a = dynamo twice\n", "Route a twice"},
	})
	before := snapshot(t, dir)
	r := run(t, cache, "--patches", patches, "series", "move", "--version", "v9", "2", "--to", "1")
	assert.Equal(t, 3, r.code, r.stdout+r.stderr)
	assert.Equal(t, before, snapshot(t, dir))

	r = run(t, cache, "--patches", patches, "series", "drop", "--version", "v9", "7")
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "v9 has 2 patches of its own; there is no patch 7")
	r = run(t, cache, "--patches", patches, "series", "reword", "--version", "v9", "1")
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Equal(t, before, snapshot(t, dir))
}

// TestPickReasonIsTheBodyOfASubjectOnlyCommit: a picked commit with only a
// subject gets --reason as its body, so lint finds nothing to say.
func TestPickReasonIsTheBodyOfASubjectOnlyCommit(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)
	clone := filepath.Join(t.TempDir(), "clone")
	gitfixture.Git(t, filepath.Dir(clone), "clone", "-q", u.repo.Dir, clone)
	gitfixture.Git(t, clone, "checkout", "-q", u.v1)
	data, err := os.ReadFile(filepath.Join(clone, "d.txt"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(clone, "d.txt"), []byte(strings.Replace(string(data), "d 9 line\n", "d 9 fixed\n", 1)), 0o644))
	gitfixture.Git(t, clone, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-am", "Fix d")
	r := run(t, cache, "--patches", patches, "pick", "--version", "v9", "--from", clone, "--reason", "the stream hangs without it",
		"--upstream-link", "https://example.com/pull/9", "HEAD")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = run(t, cache, "--patches", patches, "lint", "--version", "v9")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.NotContains(t, r.stdout, "no body")
	picked, err := os.ReadFile(filepath.Join(patches, "v9", "0005-Fix-d.patch"))
	require.NoError(t, err)
	assert.Contains(t, string(picked), "Subject: Fix d\n\nthe stream hangs without it\n\nUpstream: https://example.com/pull/9\nReason: the stream hangs without it\n")
}

// TestRegenAllRewritesEveryGeneratingVersion: a plugin edit makes check of
// the version that generates from it fail; regen --all rewrites it (and
// leaves a version that generates nothing alone), and check passes.
func TestRegenAllRewritesEveryGeneratingVersion(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	root := t.TempDir()
	patches := filepath.Join(root, "patches")
	dir := seriesOnV1(t, u, patches, cache)
	seriesOn(t, u.url, u.v1, patches, cache, "v8", []edit{{"a.txt", "a 1 line\n", "a = v8\n", "Route a"}})
	plugin := filepath.Join(root, "plugins", "p")
	require.NoError(t, os.MkdirAll(plugin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(plugin, "go.mod"), []byte("module example.com/plugins/p\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(plugin, "p.go"), []byte("package p\n\nconst Name = \"p\"\n"), 0o644))
	text, err := os.ReadFile(filepath.Join(dir, "recipe.yaml"))
	require.NoError(t, err)
	hash := moduleHashOf(t, u.repo.Dir, u.v1, "example.com/gaie", "v1.0.0")
	body := strings.Replace(string(text), "patches:", "generated:\n  - patch: 0004-Route-d.patch\n    from: ../../plugins/p\n    to: p\npatches:", 1)
	body = strings.Replace(body, "commit: "+u.v1+"\n", "commit: "+u.v1+"\n  module: example.com/gaie\n  moduleVersion: v1.0.0\n  moduleHash: "+hash+"\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte(body), 0o644))
	r := run(t, cache, "--patches", patches, "check", "--version", "v9")
	require.Equal(t, 6, r.code, "the plugin is not in the patch yet: "+r.stdout+r.stderr)
	v8 := snapshot(t, filepath.Join(patches, "v8"))

	r = run(t, cache, "--patches", patches, "regen", "--all")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "v9: 4 patches, 1 rewritten\n  0004-Route-d.patch\n")
	assert.NotContains(t, r.stdout, "v8")
	assert.Equal(t, v8, snapshot(t, filepath.Join(patches, "v8")))
	r = run(t, cache, "--patches", patches, "check", "--version", "v9")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	d, err := os.ReadFile(filepath.Join(dir, "0004-Route-d.patch"))
	require.NoError(t, err)
	assert.Contains(t, string(d), "+const Name = \"p\"")

	r = run(t, cache, "--patches", patches, "regen", "--all", "--version", "v9")
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
}

// TestSeriesListsTheStackNumberedAsTheEditsNumberIt: bare series and
// series list print the version's stack, inherited patches first and
// marked, its own numbered as drop takes them (drop 1 drops the patch
// listed as 1); -o json is an array, empty and not null for a version
// with no patches; without --version series is a usage error naming it.
func TestSeriesListsTheStackNumberedAsTheEditsNumberIt(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)
	fix := gitfixture.NewAt(t, filepath.Join(t.TempDir(), "fixes"))
	fix.Git(t, "fetch", "-q", u.repo.Dir, "v1")
	fix.Git(t, "checkout", "-q", "FETCH_HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(fix.Dir, "d.txt"), []byte(gitfixture.NumberedLines("d", 20)+"appended by the fix\n"), 0o644))
	fix.Git(t, "commit", "-q", "-am", "Fix the tail of d")
	r := run(t, cache, "--patches", patches, "pick", "--version", "v9.1", "--extends", "v9", "--from", fix.Dir,
		"--reason", "r", "--upstream-link", "https://example.com/pull/1", fix.RevParse(t, "HEAD"))
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	r = run(t, cache, "--patches", patches, "series")
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "--version")
	assert.Empty(t, r.stdout)

	r = run(t, cache, "--patches", patches, "series", "--version", "v9")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "#  PATCH               SUBJECT\n"+
		"1  0001-Route-a.patch  Route a\n"+
		"2  0002-Route-b.patch  Route b\n"+
		"3  0003-Fix-c.patch    Fix c\n"+
		"4  0004-Route-d.patch  Route d\n", r.stdout)

	r = run(t, cache, "--patches", patches, "series", "list", "--version", "v9.1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "#  PATCH                         SUBJECT\n"+
		"-  0001-Route-a.patch            Route a  (inherited from v9)\n"+
		"-  0002-Route-b.patch            Route b  (inherited from v9)\n"+
		"-  0003-Fix-c.patch              Fix c  (inherited from v9)\n"+
		"-  0004-Route-d.patch            Route d  (inherited from v9)\n"+
		"1  0005-Fix-the-tail-of-d.patch  Fix the tail of d\n", r.stdout)
	same := run(t, cache, "--patches", patches, "series", "--version", "v9.1")
	assert.Equal(t, r.stdout, same.stdout, "bare series is series list")

	r = run(t, cache, "--patches", patches, "series", "list", "--version", "v9.1", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var items []struct {
		Number    int    `json:"number"`
		File      string `json:"file"`
		Subject   string `json:"subject"`
		Version   string `json:"version"`
		Inherited bool   `json:"inherited"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &items))
	require.Len(t, items, 5)
	assert.Equal(t, "v9", items[0].Version)
	assert.True(t, items[0].Inherited)
	assert.Equal(t, 0, items[0].Number)
	assert.Equal(t, "0005-Fix-the-tail-of-d.patch", items[4].File)
	assert.Equal(t, "Fix the tail of d", items[4].Subject)
	assert.Equal(t, 1, items[4].Number)
	assert.False(t, items[4].Inherited)

	// The number listed is the number drop takes.
	r = run(t, cache, "--patches", patches, "series", "drop", "--version", "v9.1", "1")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = run(t, cache, "--patches", patches, "series", "--version", "v9.1", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &items))
	require.Len(t, items, 4)
	for _, it := range items {
		assert.True(t, it.Inherited, it.File)
	}

	empty := filepath.Join(patches, "v0")
	require.NoError(t, os.MkdirAll(empty, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(empty, "recipe.yaml"), []byte("upstream:\n  repository: "+u.url+"\n  ref: v1\n  commit: "+u.v1+"\npatches: []\n"), 0o644))
	r = run(t, cache, "--patches", patches, "series", "list", "--version", "v0", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "[]\n", r.stdout)
}
