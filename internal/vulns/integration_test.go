//go:build integration

package vulns_test

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/vulns"
	"github.com/epp-build/epp-build/internal/vulns/vulnstest"
)

// govulncheckVersion is the golang.org/x/vuln this module requires: the
// command run beside the library must be the same scanner.
const govulncheckVersion = "v1.9.0"

// TestV070MatchesTheGovulncheckCommand scans the v0.7.0 line as
// `epp-build vulns --version v0.7.0` does (apply into a temporary folder,
// scan ./cmd/epp and ./cmd/bbr) and runs the govulncheck command on a
// tree applied the same way, against the same pinned database: the two
// must find the same vulnerabilities at the same levels.
func TestV070MatchesTheGovulncheckCommand(t *testing.T) {
	db := vulnstest.VulnDB(t)
	r, err := recipe.LoadVersion(filepath.Join("..", "..", "patches"), "v0.7.0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	opt := apply.Options{Fetcher: apply.Fetcher{Kind: source.GoProxy}}
	rep, err := vulns.Scan(ctx, vulns.Request{Recipes: []*recipe.Recipe{r}, Apply: opt, DB: db.URL, Env: env()})
	if err != nil {
		t.Fatal(err)
	}
	tg := rep.Targets[0]
	c := tg.Counts()
	t.Logf("v0.7.0: %d called, %d imported, %d required in %.1fs (%s, %s; database of %d entries)",
		c.Called, c.Imported, c.Required, tg.Seconds, tg.GoVersion, rep.Scanner, db.Stats.Entries)
	if tg.Name != "v0.7.0" || tg.Kind != "line" || !slices.Equal(tg.Patterns, []string{"./cmd/epp", "./cmd/bbr"}) {
		t.Errorf("target %s kind %s patterns %v, want v0.7.0, a line, ./cmd/epp and ./cmd/bbr", tg.Name, tg.Kind, tg.Patterns)
	}
	if c.Called == 0 {
		t.Errorf("no called vulnerability in v0.7.0 against a database of %s: gRPC v1.73.0 and golang.org/x/net v0.40.0 have some", vulnstest.VulnDBVersion)
	}
	var nonGoCalled int
	for _, f := range tg.Findings {
		if f.Level == vulns.Called {
			if len(f.Trace) < 2 || !strings.HasPrefix(f.Trace[0], "sigs.k8s.io/gateway-api-inference-extension/") {
				t.Errorf("%s: trace %v does not start in the EPP's own code", f.ID, f.Trace)
			}
			if f.Module != "stdlib" {
				nonGoCalled++
			}
		}
		if f.Module == "stdlib" && !strings.HasPrefix(f.Version, "go1.") {
			t.Errorf("%s: the standard library is named by a Go version, not %q", f.ID, f.Version)
		}
	}
	if nonGoCalled == 0 {
		t.Error("every called finding is Go's own: the dependencies' are missing")
	}

	tree := filepath.Join(t.TempDir(), "tree")
	if _, err := apply.Recipe(ctx, r, tree, opt); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "go", "run", "golang.org/x/vuln/cmd/govulncheck@"+govulncheckVersion,
		"-C", tree, "-db", db.URL, "-json", "./cmd/epp", "./cmd/bbr")
	// Outside this module, so that `go run pkg@version` resolves alone.
	cmd.Dir, cmd.Env = t.TempDir(), env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		testenv.Require(t, "govulncheck "+govulncheckVersion+" from the Go module proxy", err.Error()+"\n"+stderr.String())
	}
	t.Logf("the govulncheck command took %.1fs (its build included)", time.Since(start).Seconds())
	theirs, err := vulns.ParseStream(stdout.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := levels(tg.Findings), levels(theirs); !slices.Equal(got, want) {
		t.Errorf("vulns and the govulncheck command differ:\nvulns:       %v\ngovulncheck: %v", got, want)
	}
}

// levels lists "id module level" of each finding, sorted.
func levels(fs []vulns.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID+" "+f.Module+"@"+f.Version+" "+string(f.Level)+" fixed "+f.Fixed)
	}
	slices.Sort(out)
	return out
}
