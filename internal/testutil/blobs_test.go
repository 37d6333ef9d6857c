package testutil

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A secret is found across read chunks and inside a gzip layer.
func TestContainsSecretReadsLayersUncompressed(t *testing.T) {
	const secret = "layer-secret-7"
	data := strings.Repeat("x", 1<<20-5) + secret + "tail"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err := zw.Write([]byte(data))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NotContains(t, gz.String(), secret)

	for name, blob := range map[string][]byte{"plain": []byte(data), "gzip": gz.Bytes()} {
		found, err := containsSecret(bytes.NewReader(blob), []byte(secret))
		require.NoError(t, err)
		assert.True(t, found, name)
		found, err = containsSecret(bytes.NewReader(blob), []byte("not-in-it"))
		require.NoError(t, err)
		assert.False(t, found, name)
	}
}
