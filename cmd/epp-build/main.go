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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCommand()
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "epp-build:", err)
	}
	code := exitCode(ctx, err)
	stop()
	os.Exit(code)
}
