package guard

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLocalChangesAdviceQuotesPaths(t *testing.T) {
	e := &LocalChangesError{Dir: "/home/me/my tree", RecipeDir: "/r/it's", Changes: &LocalChanges{Untracked: []string{"x"}}}
	assert.Contains(t, e.Error(), "`git -C '/home/me/my tree' add -A && git -C '/home/me/my tree' commit`")
	assert.Contains(t, e.Error(), `--to '/r/it'\''s'`)
	plain := &LocalChangesError{Dir: "/home/me/out", RecipeDir: "patches/v0.7.0", Changes: &LocalChanges{}}
	assert.Contains(t, plain.Error(), "`epp-build export --dir /home/me/out --to patches/v0.7.0`")
}

// Issue 34: with the built-in recipes, the advice to keep local edits
// names a folder of the user's, never the tool's cache.
func TestLocalChangesAdviceNeverNamesTheCachedRecipes(t *testing.T) {
	cached := "/home/me/.cache/epp-build/bundled/0123abcd/patches/v1.4.2"
	e := &LocalChangesError{Dir: "/home/me/out", RecipeDir: cached, BuiltIn: true, Changes: &LocalChanges{Modified: []string{"a.go"}}}
	msg := e.Error()
	assert.NotContains(t, msg, ".cache")
	assert.Contains(t, msg, "`epp-build export --dir /home/me/out --to DIR/v1.4.2`")
	assert.Contains(t, msg, "--patches DIR")
	assert.Contains(t, msg, "--force", "the way to discard them is still given")
}
