package image

import (
	"bytes"
	"context"
	"testing"

	"github.com/moby/buildkit/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/progress"
)

func TestDisplayShowsEveryParsedMode(t *testing.T) {
	for _, m := range []progress.Mode{"", progress.Auto, progress.Plain, progress.Quiet} {
		ch := make(chan *client.SolveStatus)
		close(ch)
		assert.NoError(t, display(context.Background(), m, &bytes.Buffer{}, ch), m)
	}
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
