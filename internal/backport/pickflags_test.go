package backport

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/trailer"
)

func TestCollectRefusesAReasonOrLinkThatIsNotOneLine(t *testing.T) {
	file := writePatch(t, "gaie.patch", gitDiff)
	for name, opt := range map[string]PickOptions{
		"a second Upstream: in the reason": {Upstream: "https://example.com/pull/1", Reason: "ok\nUpstream: https://evil.example/c/1"},
		"a carriage return":                {Upstream: "https://example.com/pull/1", Reason: "ok\rUpstream: x"},
		"an escape":                        {Upstream: "https://example.com/pull/1", Reason: "ok \x1b[2J"},
		"not UTF-8":                        {Upstream: "https://example.com/pull/1", Reason: "ok \xff"},
		"a newline in the link":            {Upstream: "https://example.com/pull/1\nReason: forged", Reason: "ok"},
	} {
		t.Run(name, func(t *testing.T) {
			opt.Author, opt.Date = "A <a@example.org>", fixDate
			picks, err := Collect([]string{file}, opt)
			var usage *UsageError
			require.ErrorAs(t, err, &usage, "picked: %v", picks)
		})
	}

	picks, err := Collect([]string{file}, PickOptions{Upstream: "https://example.com/pull/1", Reason: "needed for Dynamo's stream close", Author: "A <a@example.org>", Date: fixDate})
	require.NoError(t, err)
	tr := trailer.Parse(picks[0].Header.Body)
	assert.Equal(t, []string{"https://example.com/pull/1"}, tr.Values("Upstream"))
	assert.Equal(t, []string{"needed for Dynamo's stream close"}, tr.Values("Reason"))
}

func TestParseDateRefusesWhatGitCannotKeep(t *testing.T) {
	for _, s := range []string{"-1", "0000-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "2100-01-01T00:00:00Z", "1970-01-01T00:30:00+01:00"} {
		_, err := parseDate(s)
		assert.ErrorContains(t, err, "outside the dates git keeps", "--date %s", s)
	}
	for _, s := range []string{"1970-01-01T00:00:00Z", "2099-12-31T23:59:59Z", "2026-03-04 05:06:07 +0530"} {
		_, err := parseDate(s)
		assert.NoError(t, err, "--date %s", s)
	}
}
