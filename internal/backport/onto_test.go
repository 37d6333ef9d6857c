package backport

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewPinTakesTheCommitGivenAndNoCredential(t *testing.T) {
	old := recipe.Upstream{Repository: "https://example.com/gaie.git", Ref: "v1", Commit: strings.Repeat("1", 40)}
	commit := strings.Repeat("2", 40)
	u, err := NewPin(context.Background(), old, Onto{Ref: "v2", Commit: commit, Repository: "https://user:s3cret@example.com/fork.git"}, &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, "v2", u.Ref)
	assert.Equal(t, commit, u.Commit, "a commit given is not looked up")
	assert.Equal(t, "https://example.com/gaie.git", u.Repository, "a mirror is used for the lookup, the recipe keeps the canonical repository")
	assert.NotContains(t, u.Repository, "s3cret", "the new recipe never holds a credential")
}

func TestNewPinResolvesTheRefInTheRepository(t *testing.T) {
	p := newPins(t)
	var log strings.Builder
	u, err := NewPin(context.Background(), p.pin("v1", p.v1), Onto{Ref: "v2"}, &log)
	require.NoError(t, err)
	assert.Equal(t, p.pin("v2", p.v2), u, "the annotated tag is peeled to its commit")
	assert.Contains(t, log.String(), "v2 resolves to "+p.v2)

	_, err = NewPin(context.Background(), p.pin("v1", p.v1), Onto{Ref: "v3"}, &strings.Builder{})
	assert.ErrorContains(t, err, `no tag or branch "v3"`)
	assert.ErrorContains(t, err, "--onto-commit")
}

func TestNewPinRefusesOntoThatCannotBeRight(t *testing.T) {
	plain := recipe.Upstream{Repository: "https://example.com/gaie.git", Ref: "v1", Commit: strings.Repeat("1", 40)}
	for name, tc := range map[string]struct {
		onto Onto
		want string
	}{
		"module hash without version": {Onto{Ref: "v2", ModuleHash: "h1:x"}, "--onto-module-hash needs --onto-module-version"},
		"module version, no module":   {Onto{Ref: "v2", ModuleVersion: "v0.2.0", ModuleHash: "h1:x"}, "the recipe has no upstream.module"},
		"pseudo-version, no module":   {Onto{Ref: "v0.0.0-20250102030405-0123456789ab"}, "is a module pseudo-version, but the module proxy named no commit 0123456789ab"},
	} {
		_, err := NewPin(context.Background(), plain, tc.onto, &strings.Builder{})
		var usage *UsageError
		require.ErrorAs(t, err, &usage, name)
		assert.ErrorContains(t, err, tc.want, name)
	}
}

func TestNewPinTakesAShortCommitHash(t *testing.T) {
	p := newPins(t)
	older := p.repo.Commit(t, "between", map[string]string{"f.txt": "f\n"})
	p.repo.Commit(t, "tip", map[string]string{"g.txt": "g\n"})
	for _, commit := range []string{p.v2, older} {
		var log strings.Builder
		u, err := NewPin(context.Background(), p.pin("v1", p.v1), Onto{Ref: commit[:9]}, &log)
		require.NoError(t, err, commit)
		assert.Equal(t, commit, u.Commit)
		assert.Equal(t, commit, u.Ref, "a short hash is no ref to fetch")
		assert.Contains(t, log.String(), commit[:9]+" resolves to "+commit)
	}
}

// TestNewPinWorksOutTheModuleVersion takes the module version of the
// commit from its history, refuses one given that is not the commit's,
// and says so when the history cannot be read (then the proxy answers).
func TestNewPinWorksOutTheModuleVersion(t *testing.T) {
	p := newPins(t)
	old := p.pin("v1", p.v1)
	old.Module, old.ModuleVersion, old.ModuleHash = "example.com/gaie", "v1.0.0", "h1:"+strings.Repeat("A", 43)+"="
	versions := func(ctx context.Context, repository, mod, commit string) (source.CommitVersion, error) {
		v, _, err := source.CommitModuleVersion(ctx, t.TempDir(), repository, mod, commit, true)
		return v, err
	}
	var log strings.Builder
	u, err := NewPin(context.Background(), old, Onto{Ref: "v2", Versions: versions}, &log)
	require.NoError(t, err)
	assert.Equal(t, p.v2, u.Commit)
	assert.Regexp(t, `^v0\.0\.0-2025\d{10}-`+p.v2[:12]+`$`, u.ModuleVersion, "v1 and v2 are no semver tags: no base")
	assert.Empty(t, u.ModuleHash, "computed from the fetched tree")
	assert.Contains(t, log.String(), "v2 is example.com/gaie@"+u.ModuleVersion+" (computed: committed 2025-")

	_, err = NewPin(context.Background(), old, Onto{Ref: "v2", ModuleVersion: "v0.0.0-20990101000000-" + p.v2[:12], Versions: versions}, &strings.Builder{})
	var bad *source.ModuleVersionError
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, u.ModuleVersion, bad.Want)
	assert.ErrorContains(t, err, "give --onto-module-version "+u.ModuleVersion)

	log.Reset()
	broken := func(context.Context, string, string, string) (source.CommitVersion, error) {
		return source.CommitVersion{}, errors.New("no git here")
	}
	u, err = NewPin(context.Background(), old, Onto{Ref: "v2", ModuleVersion: "v1.1.0", Versions: broken}, &log)
	require.NoError(t, err)
	assert.Equal(t, "v1.1.0", u.ModuleVersion)
	assert.Contains(t, log.String(), "notice: the module version of v2 cannot be worked out from "+p.repo.FileURL()+" (no git here)")
	assert.Contains(t, log.String(), "notice: example.com/gaie@v1.1.0 is not checked against commit "+p.v2[:12])
}
