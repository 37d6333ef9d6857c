package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// stopGrace is how long a command has, after SIGINT or SIGTERM, to stop on
// its own. Every stage honours the cancelled context and removes what it
// was making well within it; what can still hold a command past it is a
// read the kernel will not interrupt (a FIFO, a device, a hung network
// filesystem), and the user asked the process to end, not to wait for it.
const stopGrace = time.Second

// interruptedExit is the exit code of a run ended by a signal.
const interruptedExit = 130

// signalContext returns a context cancelled by the first SIGINT or SIGTERM.
// A command that has not returned stopGrace after it, or that gets a
// second signal, is ended by exit(130) from here: what that leaves is what
// a kill leaves, which the next apply finds and repairs (staging folders,
// half-written packs, the lock file beside --out). stop releases the
// signals and must be called before the process exits normally.
func signalContext(stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-done:
			return
		}
		cancel()
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "epp-build: second signal: exiting now")
		case <-time.After(stopGrace):
			fmt.Fprintf(stderr, "epp-build: %v: still busy %v later (a read that cannot be interrupted): exiting now; the next apply repairs what this run leaves\n", sig, stopGrace)
		case <-done:
			return
		}
		exit(interruptedExit)
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel()
		})
	}
}
