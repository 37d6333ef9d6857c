package seriesedit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A subject is text from a patch file: the listing shows its control
// characters instead of sending them to the terminal, in text and in
// markdown alike.
func TestWriteListEscapesWhatThePatchSays(t *testing.T) {
	items := []Item{
		{File: "0001-a.patch", Subject: "base \x1b]0;owned\x07", Version: "v1", Inherited: true},
		{Number: 1, File: "0002-b.patch", Subject: "red \x1b[31mtext", Version: "v2"},
	}
	var text, md strings.Builder
	require.NoError(t, WriteList(&text, "v2", items))
	require.NoError(t, WriteListMarkdown(&md, items))
	for _, out := range []string{text.String(), md.String()} {
		assert.NotContains(t, out, "\x1b")
		assert.NotContains(t, out, "\x07")
	}
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	require.Len(t, lines, 3)
	assert.True(t, strings.HasPrefix(lines[1], "-  0001-a.patch"), lines[1])
	assert.True(t, strings.HasSuffix(lines[1], "(inherited from v1)"), lines[1])
	assert.True(t, strings.HasPrefix(lines[2], "1  0002-b.patch"), lines[2])

	text.Reset()
	require.NoError(t, WriteList(&text, "v0", []Item{}))
	assert.Equal(t, "v0 has no patches\n", text.String())
}
