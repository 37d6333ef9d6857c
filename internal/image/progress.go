package image

import (
	"context"
	"fmt"
	"io"

	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/util/progress/progressui"

	"github.com/epp-build/epp-build/internal/progress"
)

// displayModes are BuildKit's names for the progress modes. Auto is
// resolved before (progress.Resolve), so a dumb terminal gets plain lines
// from BuildKit as from the fetch.
var displayModes = map[progress.Mode]progressui.DisplayMode{
	progress.Terminal: progressui.TtyMode,
	progress.Plain:    progressui.PlainMode,
	progress.Quiet:    progressui.QuietMode,
	progress.RawJSON:  progressui.RawJSONMode,
}

// display consumes solve status until the channel closes, rendering it in
// the chosen mode. The mode was parsed by the caller; display only shows.
func display(ctx context.Context, mode progress.Mode, out io.Writer, ch chan *client.SolveStatus) error {
	mode = progress.Resolve(mode, out)
	if mode == progress.Terminal && !progress.IsTerminal(out) {
		// BuildKit's console display needs a real terminal to draw on and
		// would fail the solve; a forced tty elsewhere gets its lines.
		mode = progress.Plain
	}
	m, ok := displayModes[mode]
	if !ok {
		for range ch {
		}
		return fmt.Errorf("progress display: %w", &progress.ModeError{Value: string(mode)})
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
