package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoPins is an upstream with tags v1 and v2 (module versions v1.0.0 and
// v1.1.0). Between them a.txt gains
// lines at the top (a patch moves), b.txt changes the line the series
// edits (a conflict) and c.txt receives the series' fix (already upstream).
type twoPins struct {
	upstream
	v1, v2 string
}

func newTwoPins(t *testing.T) twoPins {
	root := t.TempDir()
	repo := gitfixture.NewAt(t, filepath.Join(root, "gaie"))
	v1 := repo.Commit(t, "v1", map[string]string{
		"a.txt": gitfixture.NumberedLines("a", 20), "b.txt": gitfixture.NumberedLines("b", 20), "c.txt": gitfixture.NumberedLines("c", 20), "d.txt": gitfixture.NumberedLines("d", 20),
	})
	repo.Tag(t, "v1", v1, true)
	v2 := repo.Commit(t, "v2", map[string]string{
		"a.txt": "new header 1\nnew header 2\nnew header 3\n" + gitfixture.NumberedLines("a", 20),
		"b.txt": strings.Replace(gitfixture.NumberedLines("b", 20), "b 1 line\n", "b = upstream changed this\n", 1),
		"c.txt": strings.Replace(gitfixture.NumberedLines("c", 20), "c 3 line\n", "c 3 fixed line\n", 1),
	})
	repo.Tag(t, "v2", v2, true)
	// The module versions the tests' recipes name: the go command gives a
	// commit the version of its semver tag.
	repo.Tag(t, "v1.0.0", v1, false)
	repo.Tag(t, "v1.1.0", v2, false)
	return twoPins{upstream: upstream{repo: repo, url: repo.HTTPURL(gitfixture.ServeHTTP(t, root)), commit: v1}, v1: v1, v2: v2}
}

// edit is one commit of a test series: replace from with to in file.
type edit struct{ file, from, to, subject string }

// seriesOnV1 makes patches/v9 with four patches on v1, one per file.
func seriesOnV1(t *testing.T, u twoPins, patchesRoot, cache string) string {
	return seriesOn(t, u.url, u.v1, patchesRoot, cache, "v9", []edit{
		{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"},
		{"b.txt", "b 1 line\n", "b = dynamo\n", "Route b"},
		{"c.txt", "c 3 line\n", "c 3 fixed line\n", "Fix c"},
		{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"},
	})
}

// seriesOn makes patches/<version> pinned at tag v1 (commit) of url, one
// patch per edit.
func seriesOn(t *testing.T, url, commit, patchesRoot, cache, version string, edits []edit) string {
	dir := filepath.Join(patchesRoot, version)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte("upstream:\n  repository: "+url+"\n  ref: v1\n  commit: "+commit+"\npatches: []\n"), 0o644))
	work := filepath.Join(t.TempDir(), "work")
	r := run(t, cache, "apply", "--recipe", dir, "--out", work)
	require.Equal(t, 0, r.code, r.stderr)
	for _, e := range edits {
		path := filepath.Join(work, e.file)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), e.from, e.to, 1)), 0o644))
		gitfixture.Git(t, work, "commit", "-q", "-am", e.subject+"\n\nWhy: the test series.\n\nReason: test")
	}
	r = run(t, cache, "export", "--dir", work, "--to", dir)
	require.Equal(t, 0, r.code, r.stderr)
	return dir
}

func snapshot(t *testing.T, root string) map[string]string {
	out := map[string]string{}
	require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			data, _ := os.ReadFile(p)
			out[p] = string(data)
		}
		return err
	}))
	return out
}

func TestRebaseClassifiesStopsContinuesAndAborts(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)
	before := snapshot(t, patches)

	// Without --dir the work tree is under the user cache folder, outside
	// the repository, and --abort finds it again.
	r := run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10")
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "conflicts marked in "+filepath.Join(cache, "epp-build", "rebase")+string(filepath.Separator))
	r = run(t, cache, "--patches", patches, "rebase", "--abort")
	require.Equal(t, 0, r.code, r.stderr)
	entries, err := os.ReadDir(filepath.Join(cache, "epp-build", "rebase"))
	require.NoError(t, err)
	assert.Empty(t, entries)

	// --abort throws everything away.
	work := filepath.Join(t.TempDir(), "rebase")
	r = run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--dir", work)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "rebase stopped at 0002-Route-b.patch")
	assert.Contains(t, r.stderr, "file b.txt")
	r = run(t, cache, "--patches", patches, "rebase", "--abort", "--dir", work)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NoDirExists(t, work)
	assert.Equal(t, before, snapshot(t, patches), "abort leaves the recipes as they were")

	// Again, fixing the conflict by hand and continuing.
	r = run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--dir", work)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "0001-Route-a.patch  applied at an offset (a.txt +3)")
	assert.Equal(t, before, snapshot(t, patches), "nothing is written before the rebase finishes")
	// The line both sides changed is in b.txt between diff3 conflict
	// markers, base from v1, as git am -3 marks it.
	assert.Contains(t, r.stderr, "conflicts marked in "+work+": b.txt")
	b, err := os.ReadFile(filepath.Join(work, "b.txt"))
	require.NoError(t, err)
	block := "<<<<<<< upstream v2\nb = upstream changed this\n" +
		"||||||| base: v1 and the patches before 0002-Route-b.patch\nb 1 line\n" +
		"=======\nb = dynamo\n" +
		">>>>>>> 0002-Route-b.patch\n"
	require.Equal(t, block+strings.TrimPrefix(gitfixture.NumberedLines("b", 20), "b 1 line\n"), string(b))
	r = run(t, cache, "--patches", patches, "rebase", "--continue", "--dir", work)
	require.Equal(t, 6, r.code, "markers left: the rebase stays stopped\n"+r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "conflict markers are still in b.txt")
	require.NoError(t, os.WriteFile(filepath.Join(work, "b.txt"), []byte(strings.Replace(string(b), block, "b = dynamo on top of upstream\n", 1)), 0o644))
	r = run(t, cache, "--patches", patches, "rebase", "--continue", "--dir", work)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "0002-Route-b.patch  conflict resolved by hand")
	assert.Contains(t, r.stdout, "0003-Fix-c.patch    already upstream (dropped)")
	assert.Contains(t, r.stdout, "0004-Route-d.patch  applied\n")

	// The new version stands on v2 with three patches and checks clean.
	recipeText, err := os.ReadFile(filepath.Join(patches, "v10", "recipe.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(recipeText), "commit: "+u.v2)
	assert.Contains(t, string(recipeText), "- 0001-Route-a.patch\n  - 0002-Route-b.patch\n  - 0004-Route-d.patch\n")
	r = run(t, cache, "--patches", patches, "check", "--version", "v10")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	resolved, err := os.ReadFile(filepath.Join(patches, "v10", "0002-Route-b.patch"))
	require.NoError(t, err)
	assert.Contains(t, string(resolved), "+b = dynamo on top of upstream")
	assert.Contains(t, string(resolved), "From: Fixture Author <fixture@example.invalid>", "the resolution keeps the patch's author")

	// diff-series is the table a backport pull request needs.
	r = run(t, cache, "--patches", patches, "diff-series", "v9", "v10")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `same\s+Route d`, r.stdout)
	assert.Regexp(t, `changed\s+Route a`, r.stdout, "its context now holds upstream's new lines")
	assert.Regexp(t, `changed\s+Route b`, r.stdout)
	assert.Regexp(t, `dropped\s+Fix c\n\s+v9:\s+0003-Fix-c.patch\n\s+v10:\s+-\n`, r.stdout)
	assert.Contains(t, r.stdout, "interdiff of \"Route b\"")
	assert.Contains(t, r.stdout, "-+b = dynamo\n")

	// For CI: --exit-code says whether the series differ; -o takes one set.
	r = run(t, cache, "--patches", patches, "diff-series", "v9", "v10", "--exit-code", "-o", "markdown")
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "| dropped | Fix c | `0003-Fix-c.patch` | - | - | test |\n")
	r = run(t, cache, "--patches", patches, "diff-series", "v10", "v10", "--exit-code", "-o", "table")
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = run(t, cache, "--patches", patches, "log", "--version", "v10", "-o", "yaml")
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "use text, json, markdown")
}

// TestRebaseContinueWithNothingChangedRefuses is the series that stops at
// its first patch (skipped) and again at its fourth: --continue without an
// edit used to record the third patch's commit as the fourth patch, losing
// the fourth patch's change and the third patch's file.
func TestRebaseContinueWithNothingChangedRefuses(t *testing.T) {
	root := t.TempDir()
	repo := gitfixture.NewAt(t, filepath.Join(root, "gaie"))
	files := map[string]string{}
	for _, f := range []string{"a", "b", "c", "d"} {
		files[f+".txt"] = gitfixture.NumberedLines(f, 20)
	}
	v1 := repo.Commit(t, "v1", files)
	repo.Tag(t, "v1", v1, true)
	v2 := repo.Commit(t, "v2", map[string]string{
		"a.txt": strings.Replace(gitfixture.NumberedLines("a", 20), "a 1 line\n", "a = upstream\n", 1),
		"d.txt": strings.Replace(gitfixture.NumberedLines("d", 20), "d 1 line\n", "d = upstream\n", 1),
	})
	repo.Tag(t, "v2", v2, true)
	url := repo.HTTPURL(gitfixture.ServeHTTP(t, root))
	cache, patches := t.TempDir(), t.TempDir()
	seriesOn(t, url, v1, patches, cache, "v9", []edit{
		{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"},
		{"b.txt", "b 2 line\n", "b = dynamo\n", "Route b"},
		{"c.txt", "c 2 line\n", "c = dynamo\n", "Route c"},
		{"d.txt", "d 1 line\n", "d = dynamo\n", "Route d"},
	})

	work := filepath.Join(t.TempDir(), "rebase")
	r := run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--dir", work)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "rebase stopped at 0001-Route-a.patch")
	assert.NotContains(t, r.stderr, "epp-build export", "rebase gives its own next steps, not apply's")
	assert.Contains(t, r.stderr, "epp-build rebase --continue --dir "+work)
	r = run(t, cache, "--patches", patches, "rebase", "--skip", "--dir", work)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stderr, "rebase stopped at 0004-Route-d.patch")
	resetConflict(t, work)

	r = run(t, cache, "--patches", patches, "rebase", "--continue", "--dir", work)
	assert.Equal(t, 6, r.code, "nothing changed: the rebase stays stopped\n"+r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "rebase stopped at 0004-Route-d.patch: --continue found nothing to record")
	assert.Contains(t, r.stderr, "epp-build rebase --skip --dir "+work)
	assert.NoDirExists(t, filepath.Join(patches, "v10"), "nothing is written while stopped")

	d, err := os.ReadFile(filepath.Join(work, "d.txt"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(work, "d.txt"), []byte(strings.Replace(string(d), "d = upstream\n", "d = dynamo on upstream\n", 1)), 0o644))
	r = run(t, cache, "--patches", patches, "rebase", "--continue", "--dir", work)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	names, err := filepath.Glob(filepath.Join(patches, "v10", "*.patch"))
	require.NoError(t, err)
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	assert.Equal(t, []string{"0002-Route-b.patch", "0003-Route-c.patch", "0004-Route-d.patch"}, names)
	for name, want := range map[string]string{
		"0002-Route-b.patch": "+b = dynamo\n", "0003-Route-c.patch": "+c = dynamo\n", "0004-Route-d.patch": "+d = dynamo on upstream\n",
	} {
		data, err := os.ReadFile(filepath.Join(patches, "v10", name))
		require.NoError(t, err)
		assert.Contains(t, string(data), want, name)
		assert.Contains(t, string(data), "Subject: Route "+name[len("0002-Route-"):len("0002-Route-")+1], name)
	}
	r = run(t, cache, "--patches", patches, "check", "--version", "v10")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
}

// resetConflict puts the work tree of a stopped rebase back at HEAD, as
// if the stop had written nothing: the user did nothing for the patch.
func resetConflict(t *testing.T, work string) {
	gitfixture.Git(t, work, "reset", "-q", "--hard")
	gitfixture.Git(t, work, "clean", "-qfd")
}

func TestPickFromRepoKeepsAuthorshipAndExtends(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)

	// A fix upstream, authored elsewhere in another timezone.
	fix := gitfixture.NewAt(t, filepath.Join(t.TempDir(), "fixes"))
	fix.Git(t, "fetch", "-q", u.repo.Dir, "v1")
	fix.Git(t, "checkout", "-q", "FETCH_HEAD")
	fix.Git(t, "remote", "add", "origin", "git@github.com:example/gaie.git")
	require.NoError(t, os.WriteFile(filepath.Join(fix.Dir, "d.txt"), []byte(gitfixture.NumberedLines("d", 20)+"appended by the fix\n"), 0o644))
	fix.Git(t, "add", "-A")
	fix.Git(t, "commit", "-q", "--author=Jörg Müller <joerg@example.org>", "--date=2026-03-04T05:06:07+05:30", "-m", "Fix the tail of d\n\nThe last line was missing.")
	sha := fix.RevParse(t, "HEAD")

	r := run(t, cache, "--patches", patches, "pick", "--version", "v9.1", "--extends", "v9", "--from", fix.Dir, "--reason", "stuck streams on the v9 line", sha)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "picked 0005-Fix-the-tail-of-d.patch into v9.1")
	names, _ := filepath.Glob(filepath.Join(patches, "v9.1", "*.patch"))
	assert.Len(t, names, 1, "the new version holds only its own patch")

	// The inherited recipe applies the base series, then its own.
	out := filepath.Join(t.TempDir(), "out")
	r = run(t, cache, "--patches", patches, "apply", "--version", "v9.1", "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "Fix the tail of d\nRoute d\nFix c\nRoute b\nRoute a", gitfixture.Git(t, out, "log", "--format=%s", "refs/epp-build/upstream..HEAD"))
	assert.Equal(t, gitfixture.Git(t, fix.Dir, "log", "-1", "--format=%an <%ae> %ad", "--date=raw", sha),
		gitfixture.Git(t, out, "log", "-1", "--format=%an <%ae> %ad", "--date=raw"), "authorship is kept byte for byte")
	assert.Equal(t, "The last line was missing.\n\nUpstream: https://github.com/example/gaie/commit/"+sha+"\nReason: stuck streams on the v9 line",
		gitfixture.Git(t, out, "log", "-1", "--format=%b"))

	r = run(t, cache, "--patches", patches, "log", "--version", "v9.1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "5. Fix the tail of d  [0005-Fix-the-tail-of-d.patch]")
	assert.Contains(t, r.stdout, "author:   Jörg Müller <joerg@example.org>, 2026-03-04")
	assert.Contains(t, r.stdout, "from:     v9")
	assert.Contains(t, r.stdout, "files:    d.txt")

	r = run(t, cache, "--patches", patches, "check", "--version", "v9.1")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
}

func TestLintFindsMissingMetadataAndOverlaps(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	dir := seriesOnV1(t, u, patches, cache)
	r := run(t, cache, "--patches", patches, "lint")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	work := filepath.Join(t.TempDir(), "work")
	r = run(t, cache, "--patches", patches, "apply", "--version", "v9", "--out", work)
	require.Equal(t, 0, r.code, r.stderr)
	data, err := os.ReadFile(filepath.Join(work, "a.txt"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(work, "a.txt"), []byte(strings.Replace(string(data), "a = dynamo\n", "a = dynamo twice\n", 1)), 0o644))
	gitfixture.Git(t, work, "commit", "-q", "-am", "Touch a again")
	r = run(t, cache, "export", "--dir", work, "--to", dir)
	require.Equal(t, 0, r.code, r.stderr)

	r = run(t, cache, "--patches", patches, "lint")
	assert.Equal(t, 7, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "v9: 0005-Touch-a-again.patch: the message has no body saying why the patch exists")
	assert.Contains(t, r.stdout, "v9: 0005-Touch-a-again.patch: no Upstream: or Reason: trailer")
	assert.Contains(t, r.stdout, "changes lines of a.txt that 0001-Route-a.patch also changes")
}

// TestRebaseAsKeepsWhatTheRecipeSays rebases a version that extends another
// into a standalone one: the description, capi pin, comments and generated
// list it inherited come along (the entry of a dropped patch goes), so check
// of the new version still notices when a plugin's source drifts.
func TestRebaseAsKeepsWhatTheRecipeSays(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	root := t.TempDir()
	patches := filepath.Join(root, "patches")
	dir := seriesOnV1(t, u, patches, cache)

	// v9 gains a generated plugin patch and says what it is.
	plugin := filepath.Join(root, "plugins", "p")
	require.NoError(t, os.MkdirAll(plugin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(plugin, "go.mod"), []byte("module example.com/plugins/p\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(plugin, "p.go"), []byte("package p\n\nconst Name = \"p\"\n"), 0o644))
	work := filepath.Join(t.TempDir(), "work")
	r := run(t, cache, "--patches", patches, "apply", "--version", "v9", "--out", work)
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, os.CopyFS(filepath.Join(work, "p"), os.DirFS(plugin)))
	require.NoError(t, os.Remove(filepath.Join(work, "p", "go.mod")))
	gitfixture.Git(t, work, "add", "-A")
	gitfixture.Git(t, work, "commit", "-q", "-m", "Add the plugin\n\nWhy: the test series.\n\nReason: test")
	r = run(t, cache, "export", "--dir", work, "--to", dir)
	require.Equal(t, 0, r.code, r.stderr)
	text, err := os.ReadFile(filepath.Join(dir, "recipe.yaml"))
	require.NoError(t, err)
	hash := moduleHashOf(t, u.repo.Dir, u.v1, "example.com/gaie", "v1.0.0")
	head := "# v9: the line the test carries.\ndescription: the v9 line on GAIE v1\n"
	capi := "# the C API the line links\ncapi:\n  repository: https://example.com/dynamo.git\n  ref: v0.7.0\n  commit: " + u.v1 + "\n  dir: lib/bindings/c\n  crate: c\n  library: c\n  generation: routers\n"
	gen := "generated:\n  - patch: 0002-Route-b.patch\n    from: ../../plugins/p\n    to: q\n  # the plugin lives in this repository\n  - patch: 0005-Add-the-plugin.patch\n    from: ../../plugins/p\n    to: p\n"
	body := strings.Replace(string(text), "patches:", capi+gen+"patches:", 1)
	body = strings.Replace(body, "commit: "+u.v1+"\n", "commit: "+u.v1+"\n  module: example.com/gaie\n  moduleVersion: v1.0.0\n  moduleHash: "+hash+"\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte(head+body), 0o644))
	// 0002 also "generates" q, so dropping 0002 drops that entry; q holds
	// the same plugin, as a patch would after regen.
	r = run(t, cache, "--patches", patches, "regen", "--version", "v9")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = run(t, cache, "--patches", patches, "check", "--version", "v9")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.NoError(t, os.MkdirAll(filepath.Join(patches, "v9.1"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(patches, "v9.1", "recipe.yaml"), []byte("extends: v9\npatches: []\n"), 0o644))

	rebase := filepath.Join(t.TempDir(), "rebase")
	r = run(t, cache, "--patches", patches, "rebase", "--version", "v9.1", "--onto", "v2", "--as", "v10", "--dir", rebase,
		"--onto-module-version", "v1.1.0")
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stderr, "rebase stopped at 0002-Route-b.patch")
	r = run(t, cache, "--patches", patches, "rebase", "--skip", "--dir", rebase)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "generated folder q left out of the recipe: its patch 0002-Route-b.patch is no longer in the series")

	got, err := os.ReadFile(filepath.Join(patches, "v10", "recipe.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(got), "# v9: the line the test carries.\ndescription: the v9 line on GAIE v2\n", "the description names the new pin")
	assert.Contains(t, string(got), "# the C API the line links\ncapi:")
	assert.Contains(t, string(got), "generation: routers")
	assert.Contains(t, string(got), "# the plugin lives in this repository")
	assert.Contains(t, string(got), "- patch: 0005-Add-the-plugin.patch\n    from: ../../plugins/p\n    to: p\n")
	assert.NotContains(t, string(got), "to: q")
	assert.NotContains(t, string(got), "extends")
	// The module version given alone gets its hash computed from the tree.
	assert.Contains(t, string(got), "  moduleVersion: v1.1.0\n  moduleHash: "+moduleHashOf(t, u.repo.Dir, u.v2, "example.com/gaie", "v1.1.0")+"\n")
	r = run(t, cache, "--patches", patches, "check", "--version", "v10")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	// lint: the fixture's server is on a loopback address (a notice); a
	// description naming another pin is a problem.
	r = run(t, cache, "--patches", patches, "lint")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "notice: v10: upstream.repository "+u.url+" is on a loopback address", "a notice is not the result")
	assert.Equal(t, "no problems\n", r.stdout)
	require.NoError(t, os.WriteFile(filepath.Join(patches, "v10", "recipe.yaml"), []byte(strings.Replace(string(got), "on GAIE v2", "on GAIE v1", 1)), 0o644))
	r = run(t, cache, "--patches", patches, "lint")
	assert.Equal(t, 7, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, `v10: the description "the v9 line on GAIE v1" names v1, but the recipe pins upstream v2`)
	require.NoError(t, os.WriteFile(filepath.Join(patches, "v10", "recipe.yaml"), got, 0o644))

	// A second rebase into the same version is refused before any fetch.
	r = run(t, cache, "--patches", patches, "rebase", "--version", "v9.1", "--onto", "v2", "--as", "v10", "--dir", filepath.Join(t.TempDir(), "again"))
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "--as v10: version v10 exists already")
	assert.NotContains(t, r.stderr, "resolves to")

	// The plugin drifts from its patch: check of the new version says so.
	require.NoError(t, os.WriteFile(filepath.Join(plugin, "p.go"), []byte("package p\n\nconst Name = \"drifted\"\n"), 0o644))
	r = run(t, cache, "--patches", patches, "check", "--version", "v10")
	assert.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "0005-Add-the-plugin.patch")
}

// TestCompletionOffersVersionsAndFormats completes through cobra's
// __complete, as a shell would.
func TestCompletionOffersVersionsAndFormats(t *testing.T) {
	patches := t.TempDir()
	for _, v := range []string{"v1.4.2", "v1.4.3"} {
		require.NoError(t, os.MkdirAll(filepath.Join(patches, v), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(patches, v, "recipe.yaml"), []byte("patches: []\n"), 0o644))
	}
	r := run(t, t.TempDir(), "--patches", patches, "__complete", "diff-series", "v1.4.2", "")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "v1.4.2\nv1.4.3\n:4\n", r.stdout)
	r = run(t, t.TempDir(), "__complete", "log", "-o", "")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "text\njson\nmarkdown\n:4\n", r.stdout)
}

// TestPickSkipDropsAConflictingPickAndTheRestLands: of two picks the
// first conflicts with the series (exit 6, the stop names --skip);
// pick --skip drops it, the second lands, and the series checks clean.
func TestPickSkipDropsAConflictingPickAndTheRestLands(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)

	fix := gitfixture.NewAt(t, filepath.Join(t.TempDir(), "fixes"))
	fix.Git(t, "fetch", "-q", u.repo.Dir, "v1")
	fix.Git(t, "checkout", "-q", "FETCH_HEAD")
	// The series changed b's first line too: this one conflicts.
	require.NoError(t, os.WriteFile(filepath.Join(fix.Dir, "b.txt"), []byte(strings.Replace(gitfixture.NumberedLines("b", 20), "b 1 line\n", "b = fixed elsewhere\n", 1)), 0o644))
	fix.Git(t, "commit", "-q", "-am", "Fix b")
	conflicting := fix.RevParse(t, "HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(fix.Dir, "d.txt"), []byte(gitfixture.NumberedLines("d", 20)+"appended by the fix\n"), 0o644))
	fix.Git(t, "commit", "-q", "-am", "Fix the tail of d")
	clean := fix.RevParse(t, "HEAD")
	dir := filepath.Join(t.TempDir(), "pick")
	before := snapshot(t, patches)

	r := run(t, cache, "--patches", patches, "pick", "--version", "v9", "--from", fix.Dir, "--reason", "r", "--upstream-link", "https://example.com/pull/1", "--dir", dir, conflicting, clean)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "epp-build pick --skip --dir "+dir)
	assert.Equal(t, before, snapshot(t, patches), "nothing is written while stopped")

	r = run(t, cache, "--patches", patches, "pick", "--skip", "--continue", "--dir", dir)
	assert.Equal(t, 2, r.code, "--skip and --continue exclude each other: %s", r.stderr)

	r = run(t, cache, "--patches", patches, "pick", "--skip", "--dir", dir)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, ": skipped")
	assert.Equal(t, "picked 0005-Fix-the-tail-of-d.patch into v9\n", r.stdout)
	names, _ := filepath.Glob(filepath.Join(patches, "v9", "*.patch"))
	assert.Len(t, names, 5, "four of the series and the pick that landed")
	assert.NoDirExists(t, dir)

	r = run(t, cache, "--patches", patches, "check", "--version", "v9")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
}
