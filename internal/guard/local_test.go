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
