package typecheck

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/testenv"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

// module is a dependency-free module: lib, plug importing lib, and an
// unrelated package; plug calls what lib no longer has.
func module(t *testing.T) string {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod":             "module example.com/up\n\ngo 1.21\n",
		"lib/lib.go":         "package lib\n\nfunc New() int { return 2 }\n",
		"plug/plug.go":       "package plug\n\nimport \"example.com/up/lib\"\n\n// X routes.\nvar X = lib.Old()\n",
		"other/other.go":     "package other\n\nconst Y = 1\n",
		"testonly/a_test.go": "package testonly\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
		"README.md":          "upstream\n",
	})
	return dir
}

func TestCheckNamesTheFirstErrorsFileAndLine(t *testing.T) {
	testenv.Tool(t, "go", "the type-check runs the go command")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := module(t)

	_, err := Check(ctx, dir, []string{"plug/plug.go"}, Options{})
	var bad *Error
	require.True(t, errors.As(err, &bad), "%v", err)
	assert.Equal(t, "plug/plug.go", bad.File)
	assert.Equal(t, 6, bad.Line)
	assert.Equal(t, "plug/plug.go:6", bad.Place())
	assert.Contains(t, bad.Msg, "undefined: lib.Old")
	assert.Equal(t, "example.com/up/plug", bad.Package)

	// A change to lib checks plug too, which imports it.
	_, err = Check(ctx, dir, []string{"lib/lib.go"}, Options{})
	require.True(t, errors.As(err, &bad), "%v", err)
	assert.Equal(t, "plug/plug.go:6", bad.Place())

	// Neither other nor a folder of tests only imports lib or plug.
	res, err := Check(ctx, dir, []string{"other/other.go", "testonly/a_test.go"}, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"example.com/up/other", "example.com/up/testonly"}, res.Packages)
	assert.Equal(t, 2, res.Touched)
	assert.Contains(t, res.String(), "type-checked 2 Go package(s)")

	res, err = Check(ctx, dir, []string{"README.md"}, Options{})
	require.NoError(t, err)
	assert.Contains(t, res.String(), "nothing to type-check: the series changes no Go package")

	res, err = Check(ctx, t.TempDir(), []string{"a.go"}, Options{})
	require.NoError(t, err)
	assert.Contains(t, res.String(), "no go.mod")
}

// commitAll commits the work tree of repo as one commit and returns it.
func commitAll(t *testing.T, repo *git.Repository, msg string) plumbing.Hash {
	t.Helper()
	wt, err := repo.Worktree()
	require.NoError(t, err)
	require.NoError(t, wt.AddWithOptions(&git.AddOptions{All: true}))
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	require.NoError(t, err)
	return h
}

// A patch importing a package only a later patch adds is named with the
// file and line of the import; the later patch is fine.
func TestImportsEachPatchFindsAnImportOfALaterPatch(t *testing.T) {
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	require.NoError(t, err)
	writeFiles(t, dir, map[string]string{"go.mod": "module example.com/up\n", "lib/lib.go": "package lib\n"})
	base := commitAll(t, repo, "upstream")
	require.NoError(t, repo.Storer.SetReference(plumbing.NewHashReference(patchset.UpstreamRef, base)))
	writeFiles(t, dir, map[string]string{
		"router/router.go":      "package router\n\nimport \"example.com/up/lib\"\n\nvar _ = lib.X\n",
		"router/router_test.go": "package router_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/up/booking\"\n)\n",
	})
	commitAll(t, repo, "Add the router\n\nbody")
	writeFiles(t, dir, map[string]string{"booking/booking.go": "package booking\n\nimport \"example.com/up/router\"\n"})
	commitAll(t, repo, "Add booking")

	missing, err := ImportsEachPatch(dir)
	require.NoError(t, err)
	require.Len(t, missing, 1)
	assert.Equal(t, MissingImport{Patch: "Add the router", File: "router/router_test.go", Line: 6, Import: "example.com/up/booking"}, missing[0])

	changed, err := Changed(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"booking/booking.go", "router/router.go", "router/router_test.go"}, changed)
}
