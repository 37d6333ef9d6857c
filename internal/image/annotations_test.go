package image

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAnnotationsAsBuildxDoes(t *testing.T) {
	got, err := ParseAnnotations([]string{
		"org.opencontainers.image.description=the EPP",
		"index,manifest:org.opencontainers.image.url=https://example.com/a:b",
		"index-descriptor:x=",
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"annotation-manifest.org.opencontainers.image.description": "the EPP",
		"annotation-index.org.opencontainers.image.url":            "https://example.com/a:b",
		"annotation-manifest.org.opencontainers.image.url":         "https://example.com/a:b",
		"annotation-index-descriptor.x":                            "",
	}, got)
	assert.Equal(t, map[string]string{"org.opencontainers.image.url": "https://example.com/a:b"}, IndexAnnotations(got))

	for _, bad := range []string{"novalue", "layer:k=v", "index:=v"} {
		_, err := ParseAnnotations([]string{bad})
		assert.Error(t, err, bad)
	}
}

func TestParseLabels(t *testing.T) {
	got, err := ParseLabels([]string{"a=b=c", "empty="})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a": "b=c", "empty": ""}, got)
	_, err = ParseLabels([]string{"=x"})
	assert.Error(t, err)
}
