package backport

import (
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/stretchr/testify/assert"
)

func TestUpstreamCommitIsACommitURLOrHash(t *testing.T) {
	full := strings.Repeat("ab12", 10)
	for trailer, want := range map[string]string{
		"Upstream: https://github.com/kubernetes-sigs/gateway-api-inference-extension/commit/" + full: full,
		"Upstream: https://github.com/org/repo/pull/2901/commits/1748e829":                            "1748e829",
		"Upstream: " + full + " (cherry picked)":                                                      full,
		"Upstream: https://github.com/org/repo/pull/2901":                                             "",
		"Reason: no upstream": "",
	} {
		p := &patchset.Patch{}
		p.Header = &gitdiff.PatchHeader{Body: "Why.\n\n" + trailer}
		assert.Equal(t, want, upstreamCommit(p), trailer)
	}
}
