// Command epp is a tiny stand-in for the Endpoint Picker: it links the C API
// through cgo and answers --help, which is all the image smoke test runs.
package main

import (
	"fmt"
	"os"
	"runtime"

	"example.com/eppfixture/pkg/dynamo"
)

func main() {
	initRC, shutdownRC := dynamo.InitAndShutdown()
	fmt.Printf("epp fixture %s/%s: C API generation %d (init=%d shutdown=%d)\n",
		runtime.GOOS, runtime.GOARCH, dynamo.Generation(), initRC, shutdownRC)
	if len(os.Args) > 1 && os.Args[1] == "--help" {
		fmt.Println("usage: epp [--help]")
		return
	}
	if initRC != 0 || shutdownRC != 0 {
		os.Exit(1)
	}
}
