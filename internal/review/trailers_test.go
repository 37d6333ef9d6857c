package review

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTrailersAreTheLastParagraphOnly(t *testing.T) {
	body := "Why it matters.\n\nUpstream: https://example.com/pr/1\nReason: a fix\nReason: twice"
	assert.Equal(t, map[string][]string{"Upstream": {"https://example.com/pr/1"}, "Reason": {"a fix", "twice"}}, Trailers(body))

	// A wrapped value is not a trailer (git wants continuation lines indented).
	assert.Empty(t, Trailers("Why.\n\nReason: one line\nthat wraps"))
	// Key-like text in the prose is not a trailer.
	assert.Empty(t, Trailers("Note: this is prose.\n\nAnd a closing sentence."))
	assert.Empty(t, Trailers(""))
}

func TestStripTrailersKeepsTheProse(t *testing.T) {
	assert.Equal(t, "Why it matters.", stripTrailers("Why it matters.\n\nReason: x"))
	assert.Equal(t, "", stripTrailers("Reason: x"))
	assert.Equal(t, "No trailers here.", stripTrailers("No trailers here."))
}
