package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bare --tag is a tag of the image's repository (ko's --tags), never
// Docker Hub's library/NAME; a full reference must name that repository.
func TestABareTagIsInTheImageRepository(t *testing.T) {
	o := Options{Image: "registry.example/dynamo/epp:v0.7.0", Platforms: platforms(t, "linux/amd64"), Push: true,
		BuildKit: []string{"tcp://bk:1"}, Tags: []string{"latest", "registry.example/dynamo/epp:stable"}}
	b, err := Resolve(o)
	require.NoError(t, err)
	p, err := b.forVersion(nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"registry.example/dynamo/epp:v0.7.0", "registry.example/dynamo/epp:latest", "registry.example/dynamo/epp:stable"}, p.allTags())

	o.Tags = []string{"registry.example/other:latest"}
	_, err = Resolve(o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "give only the tag, such as --tag latest")

	for _, bare := range []string{"latest", "v0.7.0-978c23bb96cc", "bad tag!"} {
		assert.True(t, BareTag(bare), bare)
	}
	for _, full := range []string{"", "epp:latest", "dynamo/epp", "r.example/epp@sha256:00"} {
		assert.False(t, BareTag(full), full)
	}
}
