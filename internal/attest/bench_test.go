//go:build integration

package attest

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image/imagetest"
)

// BenchmarkAttachAndRead is what the attestation step adds to a build
// after verify: push the report referrer (two blobs, the manifest, the
// referrers tag) and read the index, its attestation manifests and the
// report back, against the real registry.
func BenchmarkAttachAndRead(b *testing.B) {
	if regDown != "" {
		b.Skip("a registry: " + regDown)
	}
	repository, idx := pushIndex(b, "dynamo/epp-bench", map[string][]string{"linux/amd64": provAndSBOM, "linux/arm64": provAndSBOM})
	dgst, err := idx.Digest()
	require.NoError(b, err)
	stmt := statementFor(b, repository, idx)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Attach(ctx, repository, dgst.String(), stmt, ro); err != nil {
			b.Fatal(err)
		}
		img, err := Read(ctx, repository+"@"+dgst.String(), ro)
		if err != nil {
			b.Fatal(err)
		}
		if err := img.Check(WantAll); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadLargeIndex reads (as inspect does) and checks (as verify
// does) an index of 2,000 platforms, each with its attestation manifest,
// from an in-process registry. Reading the children through
// go-containerregistry's index parsed the whole index once per child, so
// the time grew with the square of the platforms (55 s at 2,000); it now
// grows with their number.
func BenchmarkReadLargeIndex(b *testing.B) {
	for _, n := range []int{250, 2000} {
		b.Run(fmt.Sprintf("platforms=%d", n), func(b *testing.B) {
			ref := pushLargeIndex(b, n)
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				img, err := Read(ctx, ref, ro)
				if err != nil {
					b.Fatal(err)
				}
				if len(img.Platforms) != n {
					b.Fatalf("%d platforms, want %d", len(img.Platforms), n)
				}
			}
		})
	}
}

// pushLargeIndex pushes an index of n platforms with provenance and SBOM
// to a registry served in this process and returns its reference.
func pushLargeIndex(b *testing.B, n int) string {
	b.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	b.Cleanup(srv.Close)
	platforms := make([]string, n)
	predicates := map[string][]string{}
	for i := range platforms {
		platforms[i] = fmt.Sprintf("linux/arch%04d", i)
		predicates[platforms[i]] = provAndSBOM
	}
	idx, err := imagetest.AttestedIndex(platforms, predicates)
	require.NoError(b, err)
	ref, err := name.ParseReference(strings.TrimPrefix(srv.URL, "http://")+"/dynamo/epp:large", name.Insecure)
	require.NoError(b, err)
	require.NoError(b, remote.WriteIndex(ref, idx))
	return ref.String()
}
