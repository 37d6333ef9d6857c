package attest

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image/imagetest"
)

// TestReportReferrersAreCheckedBeforeTheyAreBelieved: anyone who can push
// to the repository can attach a referrer to the index. A broken one, or
// one about another subject, that sorts before the genuine report is
// skipped with a warning naming it, and inspect reads on to the genuine
// report; verify fails naming each skipped one (every report referrer is
// read, and any that does not agree fails it); a
// second report that records the index but says something else makes
// inspect show neither as the report, and verify fail naming both.
func TestReportReferrersAreCheckedBeforeTheyAreBelieved(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	idx, err := imagetest.AttestedIndex(bothPlatforms, map[string][]string{"linux/amd64": provAndSBOM, "linux/arm64": provAndSBOM})
	require.NoError(t, err)
	ref, err := name.ParseReference(host+"/dynamo/epp-referrers:v0.7.0", name.Insecure)
	require.NoError(t, err)
	require.NoError(t, remote.WriteIndex(ref, idx))
	repository := ref.Context().Name()
	dgst, err := idx.Digest()
	require.NoError(t, err)
	ctx := context.Background()
	genuine, err := Attach(ctx, repository, dgst.String(), statementFor(t, repository, idx), ro)
	require.NoError(t, err)

	// attachFirst attaches variants of a statement until one sorts before
	// the genuine report, and returns that one's digest.
	attachFirst := func(vary func(s *Statement, i int)) string {
		for i := 0; ; i++ {
			s := statementFor(t, repository, idx)
			vary(s, i)
			d, err := Attach(ctx, repository, dgst.String(), s, ro)
			require.NoError(t, err)
			if d < genuine {
				return d
			}
		}
	}
	broken := attachFirst(func(s *Statement, i int) {
		s.PredicateType = PredicateType + "/not-ours"
		s.Predicate.Inputs.Version = strings.Repeat("x", i)
	})
	var other v1.Hash
	otherSubject := attachFirst(func(s *Statement, i int) {
		other = v1.Hash{Algorithm: "sha256", Hex: strings.Repeat("0", 63) + string(rune('0'+i%10))}
		s.Subject[0].Digest["sha256"] = other.Hex
		s.Predicate.Inputs.Version = strings.Repeat("y", i)
	})

	img, err := Read(ctx, ref.String(), ro)
	require.NoError(t, err, "a broken referrer must not fail inspect")
	assert.Equal(t, genuine, img.ReportDigest)
	assert.Equal(t, testInputs(), img.Report.Predicate.Inputs)
	err = img.Check(WantAll)
	require.Error(t, err, "inspect shows the genuine report, but verify fails: every report attached to the index must agree")
	var ve *VerifyError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), "skipped report referrer "+broken)
	assert.Contains(t, err.Error(), "skipped report referrer "+otherSubject)
	warnings := strings.Join(img.Warnings, "\n")
	assert.Contains(t, warnings, "skipped report referrer "+broken+`: predicate type "`+PredicateType+`/not-ours"`)
	assert.Contains(t, warnings, "skipped report referrer "+otherSubject+": its statement is about")
	var text, stderr bytes.Buffer
	require.NoError(t, img.WriteText(&text))
	assert.NotContains(t, text.String(), "warning:", "a warning is not what the image holds: it goes to stderr")
	img.WriteWarnings(&stderr)
	assert.Contains(t, stderr.String(), "warning: skipped report referrer "+broken)

	// A forged report about the index, with another series.
	forged := statementFor(t, repository, idx)
	forged.Predicate.Inputs.Patches[0].Name = "0001-something-else.patch"
	forgedDigest, err := Attach(ctx, repository, dgst.String(), forged, ro)
	require.NoError(t, err)
	img, err = Read(ctx, ref.String(), ro)
	require.NoError(t, err)
	assert.Nil(t, img.Report, "neither report is shown as the index's")
	assert.ElementsMatch(t, []string{genuine, forgedDigest}, img.Conflicting)
	err = img.Check(WantAll)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "2 report attestations claim the index "+dgst.String()+" and disagree")
	assert.Contains(t, err.Error(), forgedDigest)
	text.Reset()
	require.NoError(t, img.WriteText(&text))
	assert.Contains(t, text.String(), "none shown: 2 referrers claim to be this index's report and disagree")
	assert.NotContains(t, text.String(), "0001-something-else.patch")
}
