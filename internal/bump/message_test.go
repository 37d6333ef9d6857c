package bump

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/trailer"
)

func TestMessageHasTheSubjectBodyAndTrailersLintAsksFor(t *testing.T) {
	bumps := []Bump{
		{Module: "golang.org/x/net", From: "v0.40.0", To: "v0.45.0"},
		{Module: "google.golang.org/grpc", From: "v1.73.0", To: "v1.79.3"},
	}
	msg := Message(bumps, []string{"GO-2026-0002", "GO-2025-3595", "GO-2026-0002"}, true)
	assert.Equal(t, `deps: bump golang.org/x/net to v0.45.0, google.golang.org/grpc to v1.79.3

Raise golang.org/x/net from v0.40.0 to v0.45.0.
Raise google.golang.org/grpc from v1.73.0 to v1.79.3.

Made with go get and go mod tidy in the applied tree.

Reason: the new versions fix known vulnerabilities (Fixes: below)
Order: after the series' own go.mod and go.sum changes, which go mod tidy ran on
Fixes: GO-2025-3595
Fixes: GO-2026-0002
`, msg)
	_, body, _ := cutSubject(msg)
	tr := trailer.Parse(body)
	assert.Equal(t, []string{"GO-2025-3595", "GO-2026-0002"}, tr.Values("Fixes"))
	assert.NotEmpty(t, trailer.Prose(body))
}

func TestMessageWithoutFixesOrEarlierModuleChanges(t *testing.T) {
	msg := Message([]Bump{{Module: "example.com/dep", From: "v1.0.0", To: "v1.1.0"}}, nil, false)
	assert.Equal(t, "deps: bump example.com/dep to v1.1.0\n\nRaise example.com/dep from v1.0.0 to v1.1.0.\n\nMade with go get and go mod tidy in the applied tree.\n\nReason: keep the line's dependencies current\n", msg)
}

func cutSubject(msg string) (string, string, bool) {
	for i := 0; i+1 < len(msg); i++ {
		if msg[i] == '\n' && msg[i+1] == '\n' {
			return msg[:i], msg[i+2:], true
		}
	}
	return msg, "", false
}
