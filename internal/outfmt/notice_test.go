package outfmt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteNoticesIsOneLineEachWithTheDetailBehindVerbose(t *testing.T) {
	ns := []Notice{
		{Line: "v1: reproduces v1 as a commit,\nnot \x1b[31mchecked\x1b[0m", Detail: strings.Repeat("the whole story ", 30)},
		{Line: strings.Repeat("long ", 60)},
	}
	var out bytes.Buffer
	require.NoError(t, WriteNotices(&out, false, ns))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 2, out.String())
	assert.Equal(t, `notice: v1: reproduces v1 as a commit, not \x1b[31mchecked\x1b[0m (more with -v)`, lines[0])
	assert.True(t, strings.HasSuffix(lines[1], "long..."), lines[1])
	for _, l := range lines {
		assert.LessOrEqual(t, len(l), NoticeWidth)
	}

	out.Reset()
	require.NoError(t, WriteNotices(&out, true, ns))
	lines = strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	assert.Equal(t, `notice: v1: reproduces v1 as a commit, not \x1b[31mchecked\x1b[0m`, lines[0])
	assert.Greater(t, len(lines), 3, "the detail follows, wrapped")
	assert.True(t, strings.HasPrefix(lines[1], "    the whole story"), lines[1])
	for _, l := range lines {
		assert.LessOrEqual(t, len(l), NoticeWidth)
	}
}

func TestWrapKeepsALongWordWhole(t *testing.T) {
	url := "https://example.com/" + strings.Repeat("x", 40)
	assert.Equal(t, []string{"a b", url, "c d"}, Wrap("a b "+url+" c d", 10))
	assert.Nil(t, Wrap("  ", 10))
}
