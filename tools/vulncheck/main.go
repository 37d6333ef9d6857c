// Command vulncheck is make lint's vulnerability step: it scans epp-build
// itself (./cmd/epp-build) against the database the tests pin
// (golang.org/x/vulndb at vulnstest.VulnDBVersion, fetched through the Go
// module proxy and indexed once into the user cache) and lists what it
// calls.
//
//	go run ./tools/vulncheck [-go go1.26.10]
//
// It fails on a called vulnerability of a dependency. One of Go itself
// is fixed by the Go that builds the release, not by this module, and
// the Go installed here may be behind: with -go VERSION the scan uses
// that Go (GOTOOLCHAIN, fetched through the module proxy) and fails on
// its called standard-library vulnerabilities too; when that Go cannot
// be had, the installed one's are listed without failing.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"

	"github.com/epp-build/epp-build/internal/vulns"
	"github.com/epp-build/epp-build/internal/vulns/vulnstest"
)

func main() {
	goVersion := flag.String("go", "", "scan with this Go (GOTOOLCHAIN) and fail on its called standard-library vulnerabilities too")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	env, strictStdlib := toolchain(ctx, *goVersion)
	if err := run(ctx, env, strictStdlib); err != nil {
		fmt.Fprintln(os.Stderr, "vulncheck:", err)
		os.Exit(1)
	}
}

// toolchain is the environment that makes the go command the Go named,
// and whether it could: GOTOOLCHAIN fetches it through the module proxy.
func toolchain(ctx context.Context, version string) ([]string, bool) {
	if version == "" {
		return nil, false
	}
	env := append(os.Environ(), "GOTOOLCHAIN="+version)
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Env = env
	out, err := cmd.Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != version {
		fmt.Fprintf(os.Stderr, "vulncheck: %s is not available (%v%s): scanning with the installed Go, whose own vulnerabilities are listed, not failed on\n", version, err, got)
		return nil, false
	}
	return env, true
}

func run(ctx context.Context, env []string, strictStdlib bool) error {
	db, err := vulnstest.BuildVulnDB()
	if err != nil {
		return fmt.Errorf("the pinned vulnerability database: %w", err)
	}
	rep, err := vulns.Scan(ctx, vulns.Request{Dirs: []string{"."}, Patterns: []string{"./cmd/epp-build"}, DB: db.URL, Env: env})
	if err != nil {
		return err
	}
	t := rep.Targets[0]
	var deps, goItself int
	for _, f := range t.Findings {
		if f.Level != vulns.Called {
			continue
		}
		what := "dependency"
		if f.Module == "stdlib" || f.Module == "toolchain" {
			what = "Go itself"
			goItself++
		} else {
			deps++
		}
		fmt.Printf("called (%s): %s %s@%s, fixed in %s\n    %s\n", what, f.ID, f.Module, f.Version, fixedOrNone(f.Fixed), f.Summary)
	}
	c := t.Counts()
	fmt.Printf("./cmd/epp-build (%s, golang.org/x/vulndb@%s, %d entries, %.0fs): %d called (%d in Go itself), %d imported, %d required only\n",
		t.GoVersion, vulnstest.VulnDBVersion, db.Stats.Entries, t.Seconds, c.Called, goItself, c.Imported, c.Required)
	switch {
	case deps > 0:
		return fmt.Errorf("%d called vulnerabilities in dependencies: raise the modules to their fixed versions", deps)
	case goItself > 0 && strictStdlib:
		return fmt.Errorf("%d called vulnerabilities in %s: build with a Go that fixes them", goItself, t.GoVersion)
	}
	return nil
}

func fixedOrNone(v string) string {
	if v == "" {
		return "no release yet"
	}
	return v
}
