package image

import (
	"context"
	"fmt"
	"io"

	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/util/progress/progressui"
)

// ProgressModes are the accepted --progress values.
var ProgressModes = []string{"auto", "plain", "quiet"}

// display consumes solve status until the channel closes, rendering it in
// the chosen mode. BuildKit's display decides tty vs plain for "auto".
func display(ctx context.Context, mode string, out io.Writer, ch chan *client.SolveStatus) error {
	var m progressui.DisplayMode
	switch mode {
	case "", "auto":
		m = progressui.AutoMode
	case "plain":
		m = progressui.PlainMode
	case "quiet":
		m = progressui.QuietMode
	default:
		for range ch {
		}
		return fmt.Errorf("progress mode %q: use auto, plain or quiet", mode)
	}
	if out == nil {
		out = io.Discard
	}
	d, err := progressui.NewDisplay(out, m)
	if err != nil {
		for range ch {
		}
		return fmt.Errorf("progress display: %w", err)
	}
	// The display must read until BuildKit closes the channel; use a context
	// that outlives cancellation so the solve is never blocked on us.
	_, err = d.UpdateFrom(context.WithoutCancel(ctx), ch)
	return err
}
