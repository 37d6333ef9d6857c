package apply

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
)

// TestResultSaysWhatWasCompletedAndKept: a run that completed an
// interrupted re-apply says so before "already holds", and a run that
// replaced a tree says which of the user's git state it kept.
func TestResultSaysWhatWasCompletedAndKept(t *testing.T) {
	head := strings.Repeat("b", 40)
	rec := &patchset.Record{Version: "v2", Upstream: source.Upstream{UpstreamCommit: strings.Repeat("a", 40)},
		Result: patchset.Result{Head: head, Patches: make([]patchset.Applied, 3)}}
	var stdout, log bytes.Buffer
	WriteResult(&stdout, &log, &Result{Recipe: &recipe.Recipe{Version: "v2"},
		Outcome: &patchset.Outcome{Dir: "/w/out", AlreadyApplied: true, Record: rec, Completed: rec}})
	assert.Equal(t, "completed the re-apply of v2 (3 patches on aaaaaaaaaaaa, HEAD bbbbbbbbbbbb) that an interrupted run left half done in /w/out\n"+
		"already applied: /w/out already holds v2 (3 patches on aaaaaaaaaaaa); nothing to do\n", stdout.String())

	stdout.Reset()
	WriteResult(&stdout, &log, &Result{Recipe: &recipe.Recipe{Version: "v2"},
		Outcome: &patchset.Outcome{Dir: "/w/out", Record: rec, Kept: []string{".git/config", ".git/hooks"}}})
	assert.Contains(t, log.String(), "kept .git/config and .git/hooks of the previous tree (your remotes, settings and hooks)\n")
}
