package testutil

import (
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/require"
)

// StartRegistry serves go-containerregistry's in-memory registry over
// plain HTTP for the test and returns its HOST:PORT: enough for a command
// that reads manifests and tags, with no docker-registry binary.
func StartRegistry(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// PushRandomIndex pushes a small random image index to ref (a plain-HTTP
// registry's REGISTRY/REPO:TAG).
func PushRandomIndex(t testing.TB, ref string) {
	t.Helper()
	r, err := name.ParseReference(ref, name.Insecure)
	require.NoError(t, err)
	idx, err := random.Index(64, 1, 1)
	require.NoError(t, err)
	require.NoError(t, remote.WriteIndex(r, idx))
}
