package attest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/testutil"
)

// A tag the registry lacks is a *NoSuchImageError listing the
// repository's image tags (not cosign's sha256-... ones), at most
// shownTags of them and how many more.
func TestAMissingTagListsTheRepositoryTags(t *testing.T) {
	host := testutil.StartRegistry(t)
	for i := range shownTags + 2 {
		testutil.PushRandomIndex(t, fmt.Sprintf("%s/dynamo/epp:v0.%d.0", host, i))
	}
	testutil.PushRandomIndex(t, host+"/dynamo/epp:sha256-"+strings.Repeat("a", 64)+".att")
	ro := image.RegistryOptions{Insecure: true}

	_, err := Read(context.Background(), host+"/dynamo/epp:v9.9.9", ro)
	var nsi *NoSuchImageError
	require.ErrorAs(t, err, &nsi)
	assert.Len(t, nsi.Tags, shownTags)
	assert.Equal(t, 2, nsi.More)
	assert.Equal(t, "v0.0.0", nsi.Tags[0])
	assert.NotContains(t, err.Error(), "sha256-")
	assert.Contains(t, err.Error(), "no such image "+host+"/dynamo/epp:v9.9.9: the registry has no manifest there; the repository has the tags v0.0.0, v0.1.0")
	assert.Contains(t, err.Error(), "and 2 more")
}

// A 404 for /v2/ is a server that is no registry, not a missing image.
func TestA404FromANonRegistryIsNotNoSuchImage(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	_, err := Read(context.Background(), strings.TrimPrefix(srv.URL, "http://")+"/dynamo/epp:v0.7.0", image.RegistryOptions{Insecure: true})
	require.Error(t, err)
	var nsi *NoSuchImageError
	assert.False(t, errors.As(err, &nsi), err.Error())
}

func TestAReferenceThatDoesNotParseIsAReferenceError(t *testing.T) {
	_, err := Read(context.Background(), "https://u:s3cret@r.example/a:b", image.RegistryOptions{})
	var re *ReferenceError
	require.ErrorAs(t, err, &re)
	assert.NotContains(t, err.Error(), "s3cret")
	assert.Contains(t, err.Error(), "want REGISTRY/REPO:TAG")
}
