package source

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// lastEPP is GAIE 1748e829 as the module proxy names it (docs: DESIGN.md
// section 8): no tag in its history, committed 2026-06-16 11:01:26 UTC.
const (
	lastEPPCommit  = "1748e829d1161147aaf35e76699ec86fd88406d2"
	lastEPPVersion = "v0.0.0-20260616110126-1748e829d116"
)

var lastEPPTime = time.Date(2026, 6, 16, 11, 1, 26, 0, time.UTC)

// TestCommitVersionFollowsTheGoCommand checks each rule of the go
// command's version for a commit against versions written out by hand.
func TestCommitVersionFollowsTheGoCommand(t *testing.T) {
	const mod = "sigs.k8s.io/gateway-api-inference-extension"
	const suffix = "20260616110126-1748e829d116"
	for name, tc := range map[string]struct {
		mod        string
		when       time.Time
		on, merged []string
		want, base string
	}{
		"no tag in the history":     {want: lastEPPVersion},
		"a committer time off UTC":  {when: lastEPPTime.In(time.FixedZone("IST", 5*3600+1800)), want: lastEPPVersion},
		"a release in the history":  {merged: []string{"v1.2.3", "v1.0.0"}, want: "v1.2.4-0." + suffix, base: "v1.2.3"},
		"a pre-release is the base": {merged: []string{"v1.2.3", "v1.3.0-rc.1"}, want: "v1.3.0-rc.1.0." + suffix, base: "v1.3.0-rc.1"},
		"tags that are no base": {
			merged: []string{"v2.0.0", "v1.9", "release-1.0", "v0.0.0-20200101000000-abcdefabcdef", "v1.1.0+build.1", "v1.0.0"},
			want:   "v1.1.1-0." + suffix, base: "v1.1.0",
		},
		"a tag on the commit": {on: []string{"v1.5.0", "v1.4.9", "v1.6.0+meta", "v2.0.0"}, merged: []string{"v1.5.0", "v1.4.9", "v1.6.0+meta"},
			want: "v1.5.0", base: "v1.6.0"},
		"a /v2 module":              {mod: mod + "/v2", merged: []string{"v1.9.0", "v2.1.0"}, want: "v2.1.1-0." + suffix, base: "v2.1.0"},
		"a /v2 module without tags": {mod: mod + "/v2", merged: []string{"v1.9.0"}, want: "v2.0.0-" + suffix},
	} {
		if tc.mod == "" {
			tc.mod = mod
		}
		if tc.when.IsZero() {
			tc.when = lastEPPTime
		}
		v, err := commitVersion(tc.mod, lastEPPCommit, tc.when, tc.on, tc.merged)
		require.NoError(t, err, name)
		assert.Equal(t, tc.want, v.Version, name)
		assert.Equal(t, tc.base, v.Base, name)
		assert.NoError(t, CheckModuleVersion(tc.want, v), name)
	}
}

// TestCheckModuleVersionNamesWhatIsWrong refuses made-up versions of a
// commit, naming the part that is wrong and the version it has.
func TestCheckModuleVersionNamesWhatIsWrong(t *testing.T) {
	const mod = "sigs.k8s.io/gateway-api-inference-extension"
	plain, err := commitVersion(mod, lastEPPCommit, lastEPPTime, nil, nil)
	require.NoError(t, err)
	based, err := commitVersion(mod, lastEPPCommit, lastEPPTime, nil, []string{"v1.2.3"})
	require.NoError(t, err)
	tagged, err := commitVersion(mod, lastEPPCommit, lastEPPTime, []string{"v1.5.0", "v1.5.0-rc.2"}, []string{"v1.5.0", "v1.5.0-rc.2"})
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		v     CommitVersion
		given string
		why   string
	}{
		"another revision":  {plain, "v0.0.0-20260616110126-deadbeefdead", "its revision deadbeefdead is not the commit's 1748e829d116"},
		"a time to come":    {plain, "v0.0.0-20990101000000-1748e829d116", "its time 20990101000000 is not the commit's committer time 20260616110126"},
		"a base with none":  {plain, "v1.2.4-0.20260616110126-1748e829d116", "its base v1.2.3 is no tag in the commit's history, which has none"},
		"no base":           {based, lastEPPVersion, "its base is none (v0.0.0), but the highest tag in the commit's history is v1.2.3"},
		"a lower base":      {based, "v1.0.1-0.20260616110126-1748e829d116", "its base is v1.0.0, but the highest tag"},
		"a tagged commit":   {tagged, "v1.5.1-0.20260616110126-1748e829d116", "the commit is tagged v1.5.0"},
		"a tag not on it":   {plain, "v1.5.0", "no tag v1.5.0 names the commit"},
		"not a version":     {plain, "main", "it is not a module version"},
		"a short revision":  {plain, "v0.0.0-20260616110126-1748e829d11", "its revision 1748e829d11 is not"},
		"an uppercase hash": {plain, "v0.0.0-20260616110126-1748E829D116", "its revision 1748E829D116"},
	} {
		err := CheckModuleVersion(tc.given, tc.v)
		var bad *ModuleVersionError
		require.ErrorAs(t, err, &bad, name)
		assert.Equal(t, 5, bad.CLIExitCode())
		assert.ErrorContains(t, err, tc.why, name)
		assert.ErrorContains(t, err, "the go command names that commit "+tc.v.Version, name)
	}
	assert.NoError(t, CheckModuleVersion("v1.5.0-rc.2", tagged), "every canonical tag on the commit is a version of it")
}

// TestCommitModuleVersionReadsTheTagAncestry works the version out of a
// repository's history: the highest tag the commit descends from is the
// base, a higher tag on another branch is not; the cache answers offline
// once the tags were fetched, and says when it cannot.
func TestCommitModuleVersionReadsTheTagAncestry(t *testing.T) {
	ctx := context.Background()
	repo := gitfixture.New(t)
	a := repo.Commit(t, "a", map[string]string{"go.mod": "module example.com/gaie\n"})
	repo.Tag(t, "v0.1.0", a, false)
	b := repo.Commit(t, "b", map[string]string{"b.txt": "b\n"})
	repo.Tag(t, "v0.2.0-rc.1", b, true)
	repo.Git(t, "checkout", "-q", "-b", "release", a)
	side := repo.Commit(t, "side", map[string]string{"s.txt": "s\n"})
	repo.Tag(t, "v0.9.0", side, true)
	repo.Git(t, "checkout", "-q", "main")
	c := repo.Commit(t, "c", map[string]string{"c.txt": "c\n"})
	repo.Git(t, "tag", "v0.3.0-rc.0")
	repo.Git(t, "tag", "-d", "v0.3.0-rc.0")

	out := repo.Git(t, "log", "-1", "--format=%cI", c)
	when, err := time.Parse(time.RFC3339, strings.TrimSpace(out))
	require.NoError(t, err)
	want := "v0.2.0-rc.1.0." + when.UTC().Format("20060102150405") + "-" + c[:12]

	cache := t.TempDir()
	_, ok, err := CommitModuleVersion(ctx, cache, repo.FileURL(), "example.com/gaie", c, false)
	require.NoError(t, err)
	assert.False(t, ok, "nothing cached: the version cannot be worked out offline")

	v, ok, err := CommitModuleVersion(ctx, cache, repo.FileURL(), "example.com/gaie", c, true)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, want, v.Version)
	assert.Equal(t, "v0.2.0-rc.1", v.Base, "v0.9.0 is on another branch")

	v, ok, err = CommitModuleVersion(ctx, cache, repo.FileURL(), "example.com/gaie", c, false)
	require.NoError(t, err)
	require.True(t, ok, "the commit and the tags are cached")
	assert.Equal(t, want, v.Version)

	v, _, err = CommitModuleVersion(ctx, cache, repo.FileURL(), "example.com/gaie", b, true)
	require.NoError(t, err)
	assert.Equal(t, "v0.2.0-rc.1", v.Version, "an annotated tag on the commit is its version")
	v, _, err = CommitModuleVersion(ctx, cache, repo.FileURL(), "example.com/gaie", side, false)
	require.NoError(t, err)
	assert.Equal(t, "v0.9.0", v.Version)
}
