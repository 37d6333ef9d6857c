package status

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/backport"
)

// TestTextFromRebaseAndPickStateIsEscaped: the names status prints from a
// rebase or pick state (and the folders it was found in) reach the
// terminal with their controls escaped, never as an OSC title or colour.
func TestTextFromRebaseAndPickStateIsEscaped(t *testing.T) {
	const osc = "\x1b]0;owned\a"
	var b strings.Builder
	writeRebase(&b, &backport.Status{Dir: "/tmp/rb" + osc, FoundHow: "note " + osc, Version: "v9" + osc, As: "v10" + osc, Onto: "v2" + osc,
		Next: []string{"epp-build rebase --continue --dir /tmp/rb" + osc}})
	writePick(&b, &backport.PickStatus{Dir: "/tmp/pk" + osc, FoundHow: osc, Version: "v9" + osc, StoppedAt: "p" + osc, Title: osc,
		Next: []string{"epp-build pick --abort --dir /tmp/pk" + osc}})
	out := b.String()
	assert.NotContains(t, out, "\x1b")
	assert.NotContains(t, out, "\a")
	assert.Contains(t, out, `rebase of v9\x1b]0;owned\x07 as v10\x1b]0;owned\x07 onto v2\x1b]0;owned\x07`)
	assert.Contains(t, out, `epp-build pick --abort --dir /tmp/pk\x1b]0;owned\x07`)
}
