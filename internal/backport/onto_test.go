package backport

import (
	"context"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
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
