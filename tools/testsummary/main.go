// Command testsummary reads the `go test -json` files of every test stage
// of `make test` and prints one closing summary: tests passed, failed and
// skipped, each skipped test with its reason (so a skip is visible without
// -v), and packages that failed to build.
//
//	go run ./tools/testsummary results/*.json
package main

import (
	"fmt"
	"os"
)

func main() {
	s := newSummary()
	for _, path := range os.Args[1:] {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			os.Exit(1)
		}
		err = s.read(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "testsummary: %s: %v\n", path, err)
			os.Exit(1)
		}
	}
	if skips := s.skips(); len(skips) > 0 {
		fmt.Printf("skipped (%d):\n", len(skips))
		for _, line := range skips {
			fmt.Println("  " + line)
		}
	}
	for _, pkg := range s.buildFailures {
		fmt.Printf("failed without a failing test (build error or panic): %s\n", pkg)
	}
	passed, failed, skipped := s.counts()
	fmt.Printf("tests: %d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 {
		os.Exit(1)
	}
}
