//go:build unix

package killpoint

import (
	"fmt"
	"os"
	"syscall"
)

// Block stops the calling goroutine for good when name is the point the
// environment names, as a read from a FIFO no one writes to would: in a
// blocking read(2) of a pipe whose write end stays open, which no context
// and no Go deadline can interrupt. It stands for any read the process
// cannot cancel, so a test can prove that a signal still ends the process.
func Block(name string) {
	if blockAt == "" || blockAt != name {
		return
	}
	// The test waits for this line before it sends its signal.
	fmt.Fprintf(os.Stderr, "epp-build: test: blocked at %s\n", name)
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		select {}
	}
	buf := make([]byte, 1)
	for {
		_, _ = syscall.Read(fds[0], buf)
	}
}
