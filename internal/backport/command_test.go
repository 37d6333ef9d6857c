package backport

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
)

func TestPickIntoRefusesBeforeAnyWork(t *testing.T) {
	loaded := false
	load := func() (*recipe.Recipe, error) { loaded = true; return nil, errors.New("unreached") }
	_, err := PickInto(context.Background(), PickRequest{Root: t.TempDir(), Load: load})
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.EqualError(t, err, "--version is required")

	root := t.TempDir()
	_, err = PickInto(context.Background(), PickRequest{Root: root, Version: "v2", Extends: "v1", Load: load})
	require.ErrorAs(t, err, &ue, "a missing base is a usage error")
	assert.NoDirExists(t, filepath.Join(root, "v2"))
	assert.False(t, loaded)
}

func TestRebaseStartNeedsOnto(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rebase")
	res, err := Rebase(context.Background(), RebaseRequest{Dir: dir})
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.EqualError(t, err, "--onto is required: the upstream tag or commit to rebase onto")
	var out bytes.Buffer
	WriteRebased(&out, res)
	assert.Empty(t, out.String(), "no steps and not finished: nothing to say")
}

func TestWriteRebased(t *testing.T) {
	var out bytes.Buffer
	WriteRebased(&out, &Rebased{Dir: "d", Finished: true, Steps: []Step{
		{Patch: "0001-a.patch", Outcome: "applied", Offsets: []patchset.Offset{{File: "x.go", Lines: 3}}},
	}})
	assert.Equal(t, "PATCH         OUTCOME\n0001-a.patch  applied (x.go +3)\nrebase finished; the work tree d is yours to inspect or remove\n", out.String())

	out.Reset()
	WriteRebased(&out, &Rebased{Dir: "d", Finished: true, Removed: true})
	assert.Equal(t, "rebase finished; its work tree d removed (--keep keeps it)\n", out.String())

	out.Reset()
	WriteRebased(&out, &Rebased{Dir: "d", Aborted: true})
	assert.Equal(t, "rebase aborted; d removed, recipes untouched\n", out.String())

	out.Reset()
	WritePicked(&out, &Picked{Version: "v2", Names: []string{"0003-fix.patch"}})
	assert.Equal(t, "picked 0003-fix.patch into v2\n", out.String())
}
