package attest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
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
