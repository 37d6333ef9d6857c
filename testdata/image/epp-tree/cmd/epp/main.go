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
	fmt.Printf("epp fixture %s/%s: C API init=%d shutdown=%d\n", runtime.GOOS, runtime.GOARCH, initRC, shutdownRC)
	if initRC != 0 || shutdownRC != 0 {
		os.Exit(1)
	}
	if len(os.Args) > 1 && os.Args[1] == "--help" {
		fmt.Println("usage: epp [--help]")
	}
}
