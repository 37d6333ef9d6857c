// Command epp-build regenerates a Dynamo-enabled Endpoint Picker from the
// upstream Gateway API Inference Extension: pinned upstream + versioned
// patch series -> patched tree -> multi-arch image.
package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// A run lives for a second or less and its live heap is small: collecting
// at 5x the live heap (instead of 2x) saves a fifth of a re-apply's CPU,
// and the soft limit keeps the peak well under what apply promises.
const (
	gcPercent   = 400
	memoryLimit = 128 << 20
)

func main() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, stop := signalContext(os.Stderr, os.Exit)
	defer stop()
	root := newRootCommand()
	err := execute(ctx, root, os.Args[1:])
	if err != nil {
		// Errors quote patch metadata (file names, subjects): never let
		// it drive the terminal. They also quote flag values and
		// libraries' and servers' text, any of which may hold a
		// credential, so the one redaction rule sees every message last.
		fmt.Fprintln(os.Stderr, "epp-build:", textsafe.EscapeLines(redact.Text(err.Error())))
	}
	code := exitCode(ctx, err)
	stop()
	os.Exit(code)
}
