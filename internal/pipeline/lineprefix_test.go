package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLinePrefixerLabelsWholeLines(t *testing.T) {
	var buf syncBuffer
	w := &linePrefixer{w: &buf, prefix: "[linux/arm64] "}
	for _, part := range []string{"#1 load", " context\n\n#2 DO", "NE\nno newline yet"} {
		_, err := w.Write([]byte(part))
		require.NoError(t, err)
	}
	assert.Equal(t, "[linux/arm64] #1 load context\n\n[linux/arm64] #2 DONE\n", buf.String())
}
