package attest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/vulns"
)

// scanOf is a gate's scan of binaries (platform -> content), each with
// one called finding a VEX statement answered for.
func scanOf(binaries map[string][]byte) *vulns.Report {
	modified := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	rep := &vulns.Report{DB: "file:///srv/vulndb", DBModified: &modified, Scanner: "govulncheck (golang.org/x/vuln v1.9.0)", FailOn: vulns.FailCalled,
		ScannedAt: time.Date(2026, 12, 3, 19, 0, 0, 0, time.UTC)}
	for _, p := range bothPlatforms {
		rep.Targets = append(rep.Targets, &vulns.Target{Name: "epp " + p, Kind: "binary", Mode: "binary", Platform: p,
			Digest: fmt.Sprintf("sha256:%x", sha256.Sum256(binaries[p])),
			Findings: []vulns.Finding{{ID: "GO-2099-0101", Module: "stdlib", Level: vulns.Called,
				Suppressed: &vulns.Suppression{Justification: "vulnerable_code_not_in_execute_path"}}}})
	}
	return rep
}

// TestScanReferrerNamesTheImagesOwnBinaries: build --vulns attaches its
// scan to the index; inspect shows it, and verify (which reads every
// layer) checks that each platform image's /epp is the binary scanned. A
// scan of other binaries, or of another index, attached to this index
// fails verify, naming it.
func TestScanReferrerNamesTheImagesOwnBinaries(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	binaries := map[string][]byte{"linux/amd64": []byte("\x7fELF amd64 epp"), "linux/arm64": []byte("\x7fELF arm64 epp")}
	idx, err := imagetest.BinaryIndex("/epp", binaries)
	require.NoError(t, err)
	ref, err := name.ParseReference(host+"/dynamo/epp-scanned:v1.4.2", name.Insecure)
	require.NoError(t, err)
	require.NoError(t, remote.WriteIndex(ref, idx))
	repository := ref.Context().Name()
	dgst, err := idx.Digest()
	require.NoError(t, err)
	ctx := context.Background()
	images := platformImages(t, idx)

	stmt, err := NewScanStatement(repository, dgst.String(), "/epp", images, scanOf(binaries), time.Now())
	require.NoError(t, err)
	genuine, err := AttachScan(ctx, repository, dgst.String(), stmt, ro)
	require.NoError(t, err)

	img, err := Read(ctx, ref.String(), ro)
	require.NoError(t, err)
	require.Len(t, img.Scans, 1)
	assert.Equal(t, genuine, img.Scans[0].Digest)
	assert.Equal(t, VulnsPredicate, img.Scans[0].Statement.PredicateType)
	var text bytes.Buffer
	require.NoError(t, img.WriteText(&text))
	assert.Contains(t, text.String(), "vulns:      "+genuine+" fail-on=called: linux/amd64 0 called, 0 imported, 0 required, 1 suppressed; linux/arm64 0 called, 0 imported, 0 required, 1 suppressed; db file:///srv/vulndb (modified 2099-01-01T00:00:00Z); scanned at 2026-12-03T19:00:00Z")
	require.NoError(t, img.Check(Want{}))
	all, err := ReadAll(ctx, ref.String(), ro)
	require.NoError(t, err)
	require.NoError(t, all.Check(Want{}), "each image holds the binary scanned")

	// The scan of another build's binaries, attached to this index: its
	// report is consistent in itself, only the layers tell.
	otherBinaries := map[string][]byte{"linux/amd64": []byte("another amd64 epp"), "linux/arm64": binaries["linux/arm64"]}
	stmt, err = NewScanStatement(repository, dgst.String(), "/epp", images, scanOf(otherBinaries), time.Now())
	require.NoError(t, err)
	wrongBinary, err := AttachScan(ctx, repository, dgst.String(), stmt, ro)
	require.NoError(t, err)
	all, err = ReadAll(ctx, ref.String(), ro)
	require.NoError(t, err)
	err = all.Check(Want{})
	var ve *VerifyError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), fmt.Sprintf("vulnerability scan %s: it scanned a linux/amd64 binary sha256:%x, the image's /epp is sha256:%x: the scan is not of this image's binary",
		wrongBinary, sha256.Sum256(otherBinaries["linux/amd64"]), sha256.Sum256(binaries["linux/amd64"])))
	assert.NotContains(t, err.Error(), "vulnerability scan "+genuine)

	// Another index's scan, its subject rewritten to this index.
	stmt, err = NewScanStatement(repository, "sha256:"+strings.Repeat("1", 64), "/epp", images, scanOf(binaries), time.Now())
	require.NoError(t, err)
	stmt.Subject[0].Digest["sha256"] = dgst.Hex
	anotherIndex, err := AttachScan(ctx, repository, dgst.String(), stmt, ro)
	require.NoError(t, err)
	img, err = Read(ctx, ref.String(), ro)
	require.NoError(t, err)
	assert.Len(t, img.Scans, 3)
	err = img.Check(Want{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "vulnerability scan "+anotherIndex+": it records index sha256:"+strings.Repeat("1", 64)+", the registry holds "+dgst.String()+": it is another image's scan")

	// Another index's scan as it was: its statement is about that index.
	stmt.Subject[0].Digest["sha256"] = strings.Repeat("1", 64)
	aboutAnother, err := AttachScan(ctx, repository, dgst.String(), stmt, ro)
	require.NoError(t, err)
	img, err = Read(ctx, ref.String(), ro)
	require.NoError(t, err)
	assert.Len(t, img.Scans, 3, "a referrer whose statement is about another subject is not believed")
	err = img.Check(WantAll)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "skipped vulnerability scan referrer "+aboutAnother+": its statement is about")
}

// platformImages are the index's platform images as a build records them.
func platformImages(t *testing.T, idx v1.ImageIndex) []PlatformImage {
	t.Helper()
	m, err := idx.IndexManifest()
	require.NoError(t, err)
	var out []PlatformImage
	for _, d := range m.Manifests {
		out = append(out, PlatformImage{Platform: d.Platform.OS + "/" + d.Platform.Architecture, Digest: d.Digest.String()})
	}
	return out
}
