package backport

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/stretchr/testify/require"
)

// FuzzRebaseState feeds arbitrary bytes to the state file parser: it must
// never panic, and a state it accepts must name only plain patch files and
// in-tree paths, index inside its series, and survive a save and reload.
func FuzzRebaseState(f *testing.F) {
	good := state{
		Version: "v9", As: "v10", Recipe: "/patches/v9",
		Upstream: recipe.Upstream{Repository: "https://example.com/gaie.git", Ref: "v2", Commit: "0123456789abcdef0123456789abcdef01234567"},
		Patches:  []string{"0001-a.patch", "0002-b.patch", "0003-c.patch"},
		Next:     1, Steps: []Step{{Patch: "0001-a.patch", Outcome: Clean, Commit: "0123456789abcdef0123456789abcdef01234567"}},
		Conflict: "0002-b.patch", StopHead: "0123456789abcdef0123456789abcdef01234567", Marked: []string{"b.txt"},
	}
	data, err := json.Marshal(good)
	require.NoError(f, err)
	f.Add(data)
	f.Add([]byte(`{"version":"v9","recipe":"r","patches":["../../x.patch"],"next":0}`))
	f.Add([]byte(`{"version":"v9","recipe":"r","patches":["a.patch"],"next":5,"steps":[]}`))
	f.Add([]byte(`{"version":"v9","recipe":"r","patches":["a.patch"],"next":0,"conflict":"a.patch","marked":["/etc/passwd"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parseState(data)
		if err != nil {
			return
		}
		if st.Next < 0 || st.Next > len(st.Patches) || len(st.Steps) != st.Next {
			t.Fatalf("accepted next %d with %d patches and %d steps", st.Next, len(st.Patches), len(st.Steps))
		}
		for _, p := range st.Patches {
			if filepath.Base(p) != p || !statePatch.MatchString(p) {
				t.Fatalf("accepted patch name %q", p)
			}
		}
		for _, m := range st.Marked {
			if !filepath.IsLocal(m) {
				t.Fatalf("accepted marked path %q", m)
			}
		}
		if st.Conflict != "" && st.Conflict != st.Patches[st.Next] {
			t.Fatalf("accepted conflict %q at %d", st.Conflict, st.Next)
		}
		again, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseState(again); err != nil {
			t.Fatalf("a saved state does not load again: %v\n%s", err, again)
		}
	})
}
