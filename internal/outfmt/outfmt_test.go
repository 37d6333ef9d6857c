package outfmt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTakesOneSetWithTableAsText(t *testing.T) {
	for in, want := range map[string]Format{"text": Text, "table": Text, "json": JSON, "markdown": Markdown, "md": Markdown, "JSON": JSON} {
		got, err := Parse(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := Parse("yaml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `output format "yaml": use text, json, markdown`)
}
