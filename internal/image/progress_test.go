package image

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moby/buildkit/client"
	digest "github.com/opencontainers/go-digest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/progress"
)

// Every mode --progress takes is shown; tty on a buffer too (BuildKit's
// console display would refuse it and fail the solve).
func TestDisplayShowsEveryParsedMode(t *testing.T) {
	for _, m := range append([]string{""}, progress.Modes...) {
		ch := make(chan *client.SolveStatus)
		close(ch)
		assert.NoError(t, display(context.Background(), progress.Mode(m), &bytes.Buffer{}, ch), m)
	}
}

func TestDisplayRawJSONIsOneObjectALine(t *testing.T) {
	ch := make(chan *client.SolveStatus, 1)
	now := time.Unix(1000, 0)
	ch <- &client.SolveStatus{Vertexes: []*client.Vertex{{Digest: digest.FromString("v"), Name: "[builder 1/2] FROM golang", Started: &now}}}
	close(ch)
	var out bytes.Buffer
	require.NoError(t, display(context.Background(), progress.RawJSON, &out, ch))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.NotEmpty(t, lines)
	for _, l := range lines {
		assert.True(t, json.Valid([]byte(l)), l)
	}
	assert.Contains(t, out.String(), "FROM golang")
}

func TestDisplayDrainsOnAModeItCannotShow(t *testing.T) {
	ch := make(chan *client.SolveStatus, 1)
	ch <- &client.SolveStatus{}
	close(ch)
	err := display(context.Background(), "loud", nil, ch)
	var me *progress.ModeError
	require.ErrorAs(t, err, &me)
	assert.Empty(t, ch, "the solve is never left blocked on the channel")
}
