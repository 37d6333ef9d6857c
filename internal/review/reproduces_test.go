package review

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reproducesFixture is a copy of testdata/patches where v1 says it
// reproduces a release checked at the release's tag and v2 one checked
// only at a commit.
func reproducesFixture(t *testing.T) string {
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS(filepath.Join("testdata", "patches"))))
	add := func(version, block string) {
		path := filepath.Join(root, version, "recipe.yaml")
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, append([]byte(block), data...), 0o644))
	}
	add("v1", "reproduces:\n  release: v0.7.0\n  commit: f49d6873e417ef82090ed492ef00b6939bd5a8d0\n  checked: release\n")
	add("v2", "reproduces:\n  release: v1.4.2\n  commit: e147ceeac0563354f530b9624d0fc90ccfa6952a\n  checked: commit\n  note: main at the v1.4.0 branch cut\n")
	return root
}

func TestVersionsShowWhatEachRecipeReproduces(t *testing.T) {
	root := reproducesFixture(t)
	rows, err := Versions(root)
	require.NoError(t, err)
	require.Len(t, rows, 2)

	var text bytes.Buffer
	require.NoError(t, WriteVersions(&text, rows))
	assert.Regexp(t, `(?m)^v1 +v0\.7\.0 +release f49d6873e417 `, text.String())
	assert.Regexp(t, `(?m)^v2 +v1\.4\.2 +commit e147ceeac056 `, text.String())

	var md bytes.Buffer
	require.NoError(t, WriteVersionsMarkdown(&md, rows))
	assert.Contains(t, md.String(), "| Reproduces | Checked at |")
	assert.Contains(t, md.String(), "commit e147ceeac056")

	data, err := json.Marshal(rows)
	require.NoError(t, err)
	var decoded []map[string]any
	require.NoError(t, json.Unmarshal(data, &decoded))
	assert.Equal(t, map[string]any{"release": "v0.7.0", "commit": "f49d6873e417ef82090ed492ef00b6939bd5a8d0", "checked": "release"}, decoded[0]["reproduces"])
	assert.Equal(t, map[string]any{"release": "v1.4.2", "commit": "e147ceeac0563354f530b9624d0fc90ccfa6952a", "checked": "commit", "note": "main at the v1.4.0 branch cut"}, decoded[1]["reproduces"])
}

func TestVersionsSayWhenARecipeDoesNotSayWhatItReproduces(t *testing.T) {
	rows, err := Versions(filepath.Join("testdata", "patches"))
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	assert.Nil(t, rows[0].Reproduces)
	var text bytes.Buffer
	require.NoError(t, WriteVersions(&text, rows))
	assert.Regexp(t, `(?m)^v1 +unstated +- `, text.String())
}

func TestLintNoticesACommitCheckedRecipeWithoutFailing(t *testing.T) {
	problems, err := Lint(reproducesFixture(t))
	require.NoError(t, err)
	var notices []Problem
	for _, p := range problems {
		if p.Notice {
			notices = append(notices, p)
		}
	}
	require.Len(t, notices, 1, "only the recipe checked at a commit: %v", problems)
	assert.Equal(t, "v2", notices[0].Version)
	assert.Equal(t, "reproduces v1.4.2 as Dynamo commit e147ceeac056, not checked at the v1.4.2 release", notices[0].Message)
	assert.Equal(t, "main at the v1.4.0 branch cut", notices[0].Detail, "the recipe's note is the detail, not the line")
	assert.Equal(t, len(problems)-1, Failures(problems))

	// The notice is not the result: the text and markdown documents
	// leave it out, and it is said on stderr by Notices.
	var out bytes.Buffer
	require.NoError(t, WriteLint(&out, notices))
	assert.Equal(t, "no problems\n", out.String(), "a notice is not a problem")
	out.Reset()
	require.NoError(t, WriteLintMarkdown(&out, notices))
	assert.Equal(t, "No problems.\n", out.String())
	assert.Equal(t, []outfmt.Notice{{Line: "v2: reproduces v1.4.2 as Dynamo commit e147ceeac056, not checked at the v1.4.2 release", Detail: "main at the v1.4.0 branch cut"}}, Notices(notices))
}

func TestLintNoticesARecipeThatDoesNotSayWhatItReproduces(t *testing.T) {
	problems, err := Lint(filepath.Join("testdata", "patches"))
	require.NoError(t, err)
	var notices []string
	for _, p := range problems {
		if p.Notice {
			notices = append(notices, p.Version+": "+p.Message)
		}
	}
	assert.Contains(t, notices, "v1: does not say what Dynamo release it reproduces (add a reproduces: block: release, commit, checked, note)")
}
