// Command epp-build regenerates a Dynamo-enabled Endpoint Picker from the
// upstream Gateway API Inference Extension: pinned upstream + versioned
// patch series -> patched tree -> multi-arch image.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/epp-build/epp-build/internal/textsafe"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCommand()
	err := root.ExecuteContext(ctx)
	if err != nil {
		// Errors quote patch metadata (file names, subjects): never let
		// it drive the terminal.
		fmt.Fprintln(os.Stderr, "epp-build:", textsafe.EscapeLines(err.Error()))
	}
	code := exitCode(ctx, err)
	stop()
	os.Exit(code)
}
