package trailer

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTrailersAreTheLastParagraphOnly(t *testing.T) {
	body := "Why it matters.\n\nUpstream: https://example.com/pr/1\nReason: a fix\nReason: twice"
	assert.Equal(t, List{{"Upstream", "https://example.com/pr/1"}, {"Reason", "a fix"}, {"Reason", "twice"}}, Parse(body))
	assert.Equal(t, []string{"a fix", "twice"}, Parse(body).Values("reason"), "keys compare without case")

	// A wrapped value is not a trailer: git wants continuation lines indented.
	assert.Empty(t, Parse("Why.\n\nReason: one line\nthat wraps"))
	// Key-like text in the prose is not a trailer.
	assert.Empty(t, Parse("Note: this is prose.\n\nAnd a closing sentence."))
	assert.Empty(t, Parse("Upstream: u is cited here.\n\nWhy."))
	assert.Empty(t, Parse(""))
	assert.Empty(t, Parse("A sentence with a colon in it: here."), "a key has no spaces inside")
}

func TestContinuationLinesAreUnfolded(t *testing.T) {
	body := "Why.\n\nReason: one line\n  that wraps\n\tand wraps again\nUpstream: u"
	assert.Equal(t, List{{"Reason", "one line that wraps and wraps again"}, {"Upstream", "u"}}, Parse(body))
	assert.Equal(t, []string{"Reason: one line\n  that wraps\n\tand wraps again", "Upstream: u"}, Lines(body))
	assert.Equal(t, "Why.\n\nUpstream: u", Remove(body, "Reason"), "a trailer goes with its continuation lines")

	// An indented line under prose is prose, so the paragraph is not a block.
	assert.Empty(t, Parse("Why.\n\n  indented prose\nReason: r"))
}

func TestKeysAsGitReadsThem(t *testing.T) {
	assert.Equal(t, List{{"Acked-by", "x"}, {"Reason", "y"}, {"Empty", ""}}, Parse("Acked-by : x\nReason:y\nEmpty:"))
	assert.Empty(t, Parse(": no key"))
}

// A paragraph that git itself signed off is a block when a quarter of its
// lines are trailers.
func TestAGitGeneratedLineLowersTheBar(t *testing.T) {
	body := "Why.\n\nSigned-off-by: A <a@example.org>\nsome note\n(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)"
	assert.Equal(t, List{{"Signed-off-by", "A <a@example.org>"}}, Parse(body))
	assert.Equal(t, "Why.", Prose(body))
	assert.Empty(t, Parse("Why.\n\nReason: r\nsome note\nmore prose"), "without one, every line must be a trailer")
}

func TestProseIsTheBodyWithoutItsBlock(t *testing.T) {
	assert.Equal(t, "Why it matters.", Prose("Why it matters.\n\nReason: x"))
	assert.Equal(t, "", Prose("Reason: x"))
	assert.Equal(t, "No trailers here.", Prose("No trailers here."))
	assert.Equal(t, "First.\n\nSecond.", Prose("First.\n\nSecond.\n\n\nReason: x\n\n"))
}

func TestAddAndRemove(t *testing.T) {
	assert.Equal(t, "Why.\n\nUpstream: u", Add("Why.", "Upstream", "u"))
	assert.Equal(t, "Why.\n\nUpstream: u\nReason: r", Add("Why.\n\nUpstream: u\n", "Reason", "r"))
	assert.Equal(t, "Reason: r", Add("", "Reason", "r"))

	assert.Equal(t, "Why.\n\nReason: r", Remove("Why.\n\nUpstream: u\nReason: r", "Upstream"))
	assert.Equal(t, "Why.", Remove("Why.\n\nUPSTREAM: u\n", "Upstream"))
	assert.Equal(t, "", Remove("Upstream: u", "Upstream"))
	assert.Equal(t, "Upstream: u is cited here.\n\nWhy.", Remove("Upstream: u is cited here.\n\nWhy.", "Upstream"), "not a trailer block")
}
