package recipe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// commentLines are the comment lines on and under the nodes.
func commentLines(nodes ...*yaml.Node) []string {
	var out []string
	for _, n := range nodes {
		for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
			for _, l := range strings.Split(c, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					out = append(out, l)
				}
			}
		}
		out = append(out, commentLines(n.Content...)...)
	}
	return out
}

func TestRedescribeNamesTheNewPin(t *testing.T) {
	oldTag := Upstream{Ref: "v1.2.1", Commit: strings.Repeat("a1", 20)}
	oldCommit := Upstream{Ref: "7c1f1994dbffb64036b0c22b8d6f7f9edb8d7c0c", Commit: "7c1f1994dbffb64036b0c22b8d6f7f9edb8d7c0c"}
	newCommit := Upstream{Ref: "1748e8290f8a9c2f0c3e7a6a2a0c6b5e4d3c2b1a", Commit: "1748e8290f8a9c2f0c3e7a6a2a0c6b5e4d3c2b1a"}
	newTag := Upstream{Ref: "v1.3.0", Commit: strings.Repeat("b2", 20)}
	dynamo := "e147ceeac0563354f530b9624d0fc90ccfa6952a"
	for _, tc := range []struct {
		desc     string
		old, new Upstream
		want     string
		foreign  []string
	}{
		{"Dynamo v1.4.2 EPP on GAIE 7c1f1994dbff", oldCommit, newCommit, "Dynamo v1.4.2 EPP on GAIE 1748e8290f8a", nil},
		{"Dynamo v1.0.1 EPP on GAIE v1.2.1", oldTag, newTag, "Dynamo v1.0.1 EPP on GAIE v1.3.0", nil},
		{"Dynamo v1.0.1 EPP on GAIE v1.2.1", oldTag, newCommit, "Dynamo v1.0.1 EPP on GAIE 1748e8290f8a", nil},
		{"Dynamo v1.2.1 EPP (C API e147ceeac056) on GAIE 7c1f1994", oldCommit, newTag, "Dynamo v1.2.1 EPP (C API e147ceeac056) on GAIE v1.3.0", nil},
		// The Dynamo version equal to the old GAIE tag is not the pin.
		{"Dynamo v1.2.1 EPP on GAIE v1.2.1", oldTag, newTag, "Dynamo v1.2.1 EPP on GAIE v1.3.0", nil},
		// A pin that is neither the old nor the new one is left and reported.
		{"Dynamo v1.4.2 EPP on GAIE 206d40dca75d", oldCommit, newCommit, "Dynamo v1.4.2 EPP on GAIE 206d40dca75d", []string{"206d40dca75d"}},
		{"Dynamo EPP, a description that names no pin", oldCommit, newCommit, "Dynamo EPP, a description that names no pin", nil},
	} {
		got, foreign := Redescribe(tc.desc, tc.old, tc.new, dynamo)
		assert.Equal(t, tc.want, got, tc.desc)
		assert.Equal(t, tc.foreign, foreign, tc.desc)
	}
}

func TestForeignPinsAcceptsTheCAPIAndReproducesCommits(t *testing.T) {
	u := Upstream{Ref: "v1.2.1", Commit: strings.Repeat("a1", 20)}
	assert.Empty(t, ForeignPins("EPP on GAIE v1.2.1 with the C API at e147ceeac056", u, "e147ceeac0563354f530b9624d0fc90ccfa6952a"))
	assert.Equal(t, []string{"v1.0.0"}, ForeignPins("EPP on GAIE v1.0.0", u))
	assert.Equal(t, []string{"e147ceeac056"}, ForeignPins("EPP on GAIE e147ceeac056", u, "e147ceeac0563354f530b9624d0fc90ccfa6952a"),
		"after GAIE a hash can only be the upstream pin")
	assert.Empty(t, ForeignPins("a defaced description", u), "a word made of hex letters is no hash")
}

// TestRebasedRecipeKeepsEveryCommentOfEveryShippedRecipe rewrites each
// shipped recipe onto another pin as rebase --as does: every comment line
// of it (and of the recipes it extends) is still there, the pin is the new
// one and the description names it.
func TestRebasedRecipeKeepsEveryCommentOfEveryShippedRecipe(t *testing.T) {
	shipped := filepath.Join("..", "..", "patches")
	versions, err := Versions(shipped)
	require.NoError(t, err)
	require.NotEmpty(t, versions)
	u := Upstream{Repository: "https://github.com/kubernetes-sigs/gateway-api-inference-extension.git",
		Ref: "1748e8290f8a9c2f0c3e7a6a2a0c6b5e4d3c2b1a", Commit: "1748e8290f8a9c2f0c3e7a6a2a0c6b5e4d3c2b1a"}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			r, err := LoadVersion(shipped, v)
			require.NoError(t, err)
			root := t.TempDir()
			comments, own := []string{}, map[string]bool{}
			for at := r; at != nil; at = at.Base {
				data, err := os.ReadFile(filepath.Join(at.Dir, FileName))
				require.NoError(t, err)
				require.NoError(t, os.MkdirAll(filepath.Join(root, at.Version), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(root, at.Version, FileName), data, 0o644))
				var doc yaml.Node
				require.NoError(t, yaml.Unmarshal(data, &doc))
				m := doc.Content[0]
				for i := 0; i+1 < len(m.Content); i += 2 {
					key := m.Content[i].Value
					// A base's comments come along with what is inherited.
					if at == r || (!own[key] && (key == "upstream" || key == "capi" || key == "description")) || key == "generated" {
						comments = append(comments, commentLines(m.Content[i], m.Content[i+1])...)
					}
					own[key] = true
				}
				if at == r {
					comments = append(comments, commentLines(&doc)...)
				}
			}
			rename := map[string]string{}
			var names []string
			for _, sp := range r.Series {
				rename[sp.Name] = sp.Name
				names = append(names, sp.Name)
			}
			pin := u
			pin.Module, pin.ModuleVersion = r.Upstream.Module, ""
			if pin.Module != "" {
				pin.ModuleVersion, pin.ModuleHash = "v0.0.0-20260101000000-1748e8290f8a", "h1:"+strings.Repeat("A", 43)+"="
			}
			res, err := RebasedRecipe(filepath.Join(root, v), pin, names, rename)
			require.NoError(t, err)
			assert.Empty(t, res.Notes)
			assert.Empty(t, res.Dropped)
			got, err := os.ReadFile(filepath.Join(root, v, FileName))
			require.NoError(t, err)
			for _, c := range comments {
				assert.Contains(t, string(got), c)
			}
			assert.Contains(t, string(got), "  commit: "+u.Commit+"\n")
			assert.NotContains(t, string(got), "extends:")
			if r.Description != "" {
				assert.Regexp(t, `(?m)^description: .*GAIE 1748e8290f8a`, string(got))
				assert.NotRegexp(t, `(?m)^description: .*(`+r.Upstream.Commit[:12]+`|GAIE `+r.Upstream.Ref+`\b)`, string(got))
			}
		})
	}
}
