package recipe

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const dynamoCommit = "e147ceeac0563354f530b9624d0fc90ccfa6952a"

func TestReproducesIsLoaded(t *testing.T) {
	dir := writeRecipe(t, t.TempDir(), "v1.4.2", pin+`reproduces:
  release: v1.4.2
  commit: `+dynamoCommit+`
  checked: commit
  note: main at the 1.4.0 branch cut; the v1.4.2 tag could not be read
patches: []
`)
	r, err := Load(dir)
	require.NoError(t, err)
	require.NotNil(t, r.Reproduces)
	assert.Equal(t, Reproduces{Release: "v1.4.2", Commit: dynamoCommit, Checked: CheckedCommit, Note: "main at the 1.4.0 branch cut; the v1.4.2 tag could not be read"}, *r.Reproduces)
	assert.False(t, r.Reproduces.AtRelease())
}

func TestReproducesProblems(t *testing.T) {
	for name, tc := range map[string]struct{ block, want string }{
		"short commit": {
			"  release: v1.3.0\n  commit: e147ceeac056\n  checked: release\n",
			`reproduces.commit "e147ceeac056" must be the full 40-hex-digit Dynamo commit`,
		},
		"upper-case commit": {
			"  release: v1.3.0\n  commit: E147CEEAC0563354F530B9624D0FC90CCFA6952A\n  checked: release\n",
			`reproduces.commit "E147CEEAC0563354F530B9624D0FC90CCFA6952A" must be the full 40-hex-digit`,
		},
		"commit without a note": {
			"  release: v1.3.0\n  commit: " + dynamoCommit + "\n  checked: commit\n",
			"reproduces.note is required when checked is commit",
		},
		"blank note": {
			"  release: v1.3.0\n  commit: " + dynamoCommit + "\n  checked: commit\n  note: '  '\n",
			"reproduces.note is required when checked is commit",
		},
		"unknown checked": {
			"  release: v1.3.0\n  commit: " + dynamoCommit + "\n  checked: yes\n",
			`reproduces.checked "yes" must be release`,
		},
		"missing checked": {
			"  release: v1.3.0\n  commit: " + dynamoCommit + "\n",
			`reproduces.checked "" must be release`,
		},
		"release not a tag": {
			"  release: main\n  commit: " + dynamoCommit + "\n  checked: release\n",
			`reproduces.release "main" must be a Dynamo release tag`,
		},
		"unknown field": {
			"  release: v1.3.0\n  commit: " + dynamoCommit + "\n  checked: release\n  tag: v1.3.0\n",
			"field tag not found",
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeRecipe(t, t.TempDir(), "v1.3.0", pin+"reproduces:\n"+tc.block+"patches: []\n")
			_, err := Load(dir)
			var v *ValidationError
			require.ErrorAs(t, err, &v)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestReproducesCheckedAtTheReleaseNeedsNoNote(t *testing.T) {
	dir := writeRecipe(t, t.TempDir(), "v0.7.0", pin+"reproduces:\n  release: v0.7.0\n  commit: f49d6873e417ef82090ed492ef00b6939bd5a8d0\n  checked: release\npatches: []\n")
	r, err := Load(dir)
	require.NoError(t, err)
	assert.True(t, r.Reproduces.AtRelease())
}

func TestReproducesIsNotInherited(t *testing.T) {
	root := t.TempDir()
	writeRecipe(t, root, "v1.4.1", pin+"reproduces:\n  release: v1.4.1\n  commit: "+dynamoCommit+"\n  checked: release\npatches: []\n")
	dir := writeRecipe(t, root, "v1.4.2", "extends: v1.4.1\npatches: []\n")
	r, err := Load(dir)
	require.NoError(t, err)
	assert.Nil(t, r.Reproduces, "a recipe that extends another stands for a release of its own")
}
