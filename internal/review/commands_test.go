package review

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionsListsInvalidOnesToo(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS(filepath.Join("testdata", "patches"))))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "v9.9.9"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "v9.9.9", "recipe.yaml"), []byte("patches: []\n"), 0o644))
	rows, err := Versions(root)
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	last := rows[len(rows)-1]
	assert.Equal(t, "v9.9.9", last.Version)
	assert.NotEmpty(t, last.Error)
	for _, r := range rows[:len(rows)-1] {
		assert.Empty(t, r.Error, r.Version)
		assert.NotZero(t, r.Patches, r.Version)
	}
	var out bytes.Buffer
	require.NoError(t, WriteVersions(&out, rows))
	assert.Regexp(t, `(?m)^v9\.9\.9 +- +- +- +- +- +- +invalid: `, out.String())

	_, err = Versions(filepath.Join(root, "none"))
	require.Error(t, err)
}

func TestDiffVersionsNamesAMissingVersion(t *testing.T) {
	_, err := DiffVersions(filepath.Join("testdata", "patches"), "v0.0.0-none", "v0.0.1-none")
	require.Error(t, err)
}

func TestWriteLint(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, WriteLint(&out, nil))
	assert.Equal(t, "no problems\n", out.String())
	out.Reset()
	require.NoError(t, WriteLint(&out, []Problem{{Version: "v1", Message: "m"}}))
	assert.Equal(t, Problem{Version: "v1", Message: "m"}.String()+"\n", out.String())
}
