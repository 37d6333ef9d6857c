//go:build !unix

package killpoint

import (
	"fmt"
	"os"
)

// Block stops the calling goroutine for good when name is the point the
// environment names.
func Block(name string) {
	if blockAt == "" || blockAt != name {
		return
	}
	// The test waits for this line before it sends its signal.
	fmt.Fprintf(os.Stderr, "epp-build: test: blocked at %s\n", name)
	select {}
}
