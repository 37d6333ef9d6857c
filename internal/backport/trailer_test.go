package backport

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWithTrailerJoinsTheTrailerBlock(t *testing.T) {
	assert.Equal(t, "Why.\n\nUpstream: u", withTrailer("Why.", "Upstream", "u"))
	assert.Equal(t, "Why.\n\nUpstream: u\nReason: r", withTrailer("Why.\n\nUpstream: u", "Reason", "r"))
	assert.Equal(t, "Reason: r", withTrailer("", "Reason", "r"))
	assert.Equal(t, "Why.\n\nReason: mine", withTrailer("Why.\n\nReason: mine", "Reason", "other"), "an existing trailer is kept")
	assert.Equal(t, "Why.", withTrailer("Why.", "Reason", ""), "no value, no trailer")
}
