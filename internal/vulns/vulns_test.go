//go:build integration

package vulns_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/epp-build/epp-build/internal/vulns"
	"github.com/epp-build/epp-build/internal/vulns/vulnstest"
)

// fixture is a module whose cmd/epp calls golang.org/x/text v0.3.7's
// language.ParseAcceptLanguage (GO-2022-1059), imports gorilla/websocket
// v1.4.0 without calling what GO-2020-0019 is about, and requires the
// parts of x/text GO-2026-5970 and GO-2026-6629 name without importing
// them.
const fixture = "testdata/vulnerable"

// env keeps the scan of the fixture away from any go.work above it.
func env() []string { return append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly") }

func TestIndexOSVWritesTheV1Layout(t *testing.T) {
	db := vulnstest.VulnDB(t)
	if db.Stats.Entries != 4789 {
		t.Errorf("entries = %d, want the 4789 of golang.org/x/vulndb@%s", db.Stats.Entries, vulnstest.VulnDBVersion)
	}
	for _, f := range []string{"index/db.json", "index/modules.json", "index/vulns.json", "ID/GO-2022-1059.json"} {
		if _, err := os.Stat(filepath.Join(db.Dir, f)); err != nil {
			t.Errorf("database lacks %s: %v", f, err)
		}
	}
	var modules []struct {
		Path  string
		Vulns []struct{ ID, Fixed string }
	}
	readJSON(t, filepath.Join(db.Dir, "index/modules.json"), &modules)
	fixed := map[string]string{}
	for _, m := range modules {
		for _, v := range m.Vulns {
			fixed[m.Path+" "+v.ID] = v.Fixed
		}
	}
	for k, want := range map[string]string{
		"golang.org/x/text GO-2022-1059":           "0.3.8",
		"github.com/dgrijalva/jwt-go GO-2020-0017": "", // never fixed
		// Fixed in one package's block, never in another's.
		"github.com/argoproj/argo-workflows/v3 GO-2026-5148": "",
		// Fixed in three release branches: the latest fix.
		"github.com/CosmWasm/wasmvm/v2 GO-2025-3448": "2.2.2",
	} {
		if got, ok := fixed[k]; !ok || got != want {
			t.Errorf("modules.json: %s fixed = %q (listed %v), want %q", k, got, ok, want)
		}
	}
	var vulnsIndex []struct {
		ID      string
		Aliases []string
	}
	readJSON(t, filepath.Join(db.Dir, "index/vulns.json"), &vulnsIndex)
	if len(vulnsIndex) != db.Stats.Entries {
		t.Errorf("vulns.json lists %d, want %d", len(vulnsIndex), db.Stats.Entries)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func scanFixture(t *testing.T, req vulns.Request) *vulns.Report {
	t.Helper()
	db := vulnstest.VulnDB(t)
	req.DB, req.Env = db.URL, env()
	rep, err := vulns.Scan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// find is the finding of id in module, or nil.
func find(tg *vulns.Target, id, module string) *vulns.Finding {
	for i, f := range tg.Findings {
		if f.ID == id && f.Module == module {
			return &tg.Findings[i]
		}
	}
	return nil
}

var fixtureScan struct {
	once sync.Once
	rep  *vulns.Report
	err  error
}

// fixtureReport scans the fixture once for the tests that read the same
// scan: its source, then a binary built from it.
func fixtureReport(t *testing.T) *vulns.Report {
	t.Helper()
	db := vulnstest.VulnDB(t)
	fixtureScan.once.Do(func() {
		bin := filepath.Join(os.TempDir(), fmt.Sprintf("epp-build-vulns-fixture-%d", os.Getpid()))
		build := exec.Command("go", "build", "-o", bin, "./cmd/epp")
		build.Dir, build.Env = fixture, env()
		if out, err := build.CombinedOutput(); err != nil {
			fixtureScan.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		defer os.Remove(bin)
		fixtureScan.rep, fixtureScan.err = vulns.Scan(context.Background(),
			vulns.Request{Dirs: []string{fixture}, Binaries: []string{bin}, DB: db.URL, Env: env()})
	})
	if fixtureScan.err != nil {
		t.Fatal(fixtureScan.err)
	}
	return fixtureScan.rep
}

func TestScanSourceClassifiesCalledImportedRequired(t *testing.T) {
	rep := fixtureReport(t)
	tg := rep.Targets[0]
	t.Logf("scanned %s in %.1fs with %s", tg.Name, tg.Seconds, rep.Scanner)
	checkFixtureFindings(t, tg, true)
	if tg.Mode != "source" || !slices.Equal(tg.Patterns, []string{"./cmd/epp"}) {
		t.Errorf("mode %s patterns %v, want source [./cmd/epp]", tg.Mode, tg.Patterns)
	}
	var called *vulns.CalledError
	if err := rep.Err(); !errors.As(err, &called) || called.Called[fixture] == 0 {
		t.Errorf("Err() = %v, want a *CalledError counting %s", err, fixture)
	}
}

func checkFixtureFindings(t *testing.T, tg *vulns.Target, source bool) {
	t.Helper()
	want := []struct {
		id, module, version, fixed string
		level                      vulns.Level
	}{
		{"GO-2022-1059", "golang.org/x/text", "v0.3.7", "v0.3.8", vulns.Called},
		{"GO-2020-0019", "github.com/gorilla/websocket", "v1.4.0", "v1.4.1", vulns.Imported},
		{"GO-2026-6629", "golang.org/x/text", "v0.3.7", "v0.41.0", vulns.Required},
	}
	for _, w := range want {
		f := find(tg, w.id, w.module)
		if f == nil {
			t.Errorf("no finding %s in %s; findings: %+v", w.id, w.module, tg.Findings)
			continue
		}
		level := w.level
		if !source && level == vulns.Imported {
			// A binary keeps only the symbols it links: what a source scan
			// calls imported is either gone or linked.
			continue
		}
		if f.Level != level || f.Version != w.version || f.Fixed != w.fixed {
			t.Errorf("%s: level %s version %s fixed %s, want %s %s %s", w.id, f.Level, f.Version, f.Fixed, level, w.version, w.fixed)
		}
	}
	f := find(tg, "GO-2022-1059", "golang.org/x/text")
	if f == nil {
		return
	}
	if !slices.Contains(f.Aliases, "CVE-2022-32149") || !slices.Contains(f.Aliases, "GHSA-69ch-w2m2-3vjp") {
		t.Errorf("GO-2022-1059 aliases %v, want its CVE and GHSA", f.Aliases)
	}
	// A binary has the symbols it links, not the paths to them.
	if len(f.Trace) == 0 || f.Trace[len(f.Trace)-1] != "golang.org/x/text/language.ParseAcceptLanguage" || source && len(f.Trace) < 2 {
		t.Errorf("GO-2022-1059 trace %v, want a path ending in language.ParseAcceptLanguage", f.Trace)
	}
	if source && f.Trace[0] != "example.com/vulnerable/cmd/epp.main" {
		t.Errorf("GO-2022-1059 trace starts at %s, want the fixture's main", f.Trace[0])
	}
	for _, g := range tg.Findings {
		if g.Module == "stdlib" && !strings.HasPrefix(g.Version, "go1.") {
			t.Errorf("a standard-library finding names %q, want the Go version", g.Version)
		}
	}
}

func TestScanBinary(t *testing.T) {
	tg := fixtureReport(t).Targets[1]
	t.Logf("scanned the binary in %.1fs", tg.Seconds)
	if tg.Mode != "binary" || tg.Kind != "binary" {
		t.Errorf("mode %s kind %s, want binary", tg.Mode, tg.Kind)
	}
	checkFixtureFindings(t, tg, false)
}

func writeVEX(t *testing.T, statements string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "vex.json")
	doc := `{"@context": "https://openvex.dev/ns/v0.2.0", "@id": "https://example.com/vex/1", "author": "release desk",
	"timestamp": "2026-12-03T00:00:00Z", "version": 1, "statements": [` + statements + `]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const notAffected = `{"vulnerability": {"name": "CVE-2022-32149"}, "products": [{"@id": "pkg:oci/epp",
	"subcomponents": [{"@id": "pkg:golang/golang.org/x/text@v0.3.7"}]}],
	"status": "not_affected", "justification": "inline_mitigations_already_exist",
	"impact_statement": "the header is cut to 1 KiB before it is parsed"}`

func TestVEXSuppressesItsFinding(t *testing.T) {
	rep := scanFixture(t, vulns.Request{Dirs: []string{fixture}, VEX: writeVEX(t, notAffected)})
	tg := rep.Targets[0]
	f := find(tg, "GO-2022-1059", "golang.org/x/text")
	if f == nil || f.Suppressed == nil || f.Suppressed.Justification != "inline_mitigations_already_exist" {
		t.Fatalf("GO-2022-1059 = %+v, want it suppressed with the statement's justification", f)
	}
	if g := find(tg, "GO-2020-0019", "github.com/gorilla/websocket"); g == nil || g.Suppressed != nil {
		t.Errorf("GO-2020-0019 = %+v, want it found and not suppressed", g)
	}
	if c := tg.Counts(); c.Suppressed != 1 {
		t.Errorf("counts %+v, want 1 suppressed", c)
	}
	if !onlyGoCalled(tg) {
		t.Errorf("a called finding outside Go itself is left after the suppression: %+v", tg.Findings)
	}

	var text bytes.Buffer
	if err := vulns.WriteText(&text, rep, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "not_affected: inline_mitigations_already_exist: the header is cut to 1 KiB") {
		t.Errorf("-v text does not give the justification:\n%s", text.String())
	}

	var vex bytes.Buffer
	if err := vulns.WriteOpenVEX(context.Background(), &vex, rep); err != nil {
		t.Fatal(err)
	}
	doc := checkOpenVEX(t, vex.Bytes())
	statuses := map[string]string{}
	for _, s := range doc.Statements {
		statuses[s.Vulnerability.Name] = s.Status
	}
	if statuses["CVE-2022-32149"] != "not_affected" || statuses["GO-2022-1059"] != "" {
		t.Errorf("openvex statements %v: want the suppressed GO-2022-1059 as the --vex statement (not_affected), not as the scanner's", statuses)
	}
	if statuses["GO-2020-0019"] != "not_affected" {
		t.Errorf("openvex: GO-2020-0019 (imported, not called) = %q, want not_affected", statuses["GO-2020-0019"])
	}
}

// onlyGoCalled is whether every called finding left is Go's own.
func onlyGoCalled(tg *vulns.Target) bool {
	for _, f := range tg.Findings {
		if f.Level == vulns.Called && f.Suppressed == nil && f.Module != "stdlib" && f.Module != "toolchain" {
			return false
		}
	}
	return true
}

func TestVEXThatIsNotOpenVEXIsRefused(t *testing.T) {
	db := vulnstest.VulnDB(t)
	for name, doc := range map[string]string{
		"context":       `{"@context": "https://example.com/ns", "statements": []}`,
		"no reason":     `{"@context": "https://openvex.dev/ns/v0.2.0", "statements": [{"vulnerability": {"name": "GO-2022-1059"}, "status": "not_affected"}]}`,
		"not json":      `statements:`,
		"no vuln named": `{"@context": "https://openvex.dev/ns/v0.2.0", "statements": [{"status": "affected"}]}`,
	} {
		path := filepath.Join(t.TempDir(), "vex.json")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := vulns.Scan(context.Background(), vulns.Request{Dirs: []string{fixture}, DB: db.URL, VEX: path, Env: env()})
		var vexErr *vulns.VEXError
		if !errors.As(err, &vexErr) {
			t.Errorf("%s: err = %v, want a *VEXError", name, err)
		}
	}
}

type openVEX struct {
	Context    string `json:"@context"`
	ID         string `json:"@id"`
	Author     string `json:"author"`
	Timestamp  string `json:"timestamp"`
	Version    int    `json:"version"`
	Statements []struct {
		Vulnerability struct {
			Name string `json:"name"`
		} `json:"vulnerability"`
		Products []struct {
			ID string `json:"@id"`
		} `json:"products"`
		Status        string `json:"status"`
		Justification string `json:"justification"`
	} `json:"statements"`
}

// checkOpenVEX parses doc and checks the fields OpenVEX v0.2.0 requires.
func checkOpenVEX(t *testing.T, data []byte) openVEX {
	t.Helper()
	var doc openVEX
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("openvex output is not JSON: %v\n%s", err, data)
	}
	if doc.Context != "https://openvex.dev/ns/v0.2.0" || doc.ID == "" || doc.Author == "" || doc.Timestamp == "" || doc.Version < 1 {
		t.Errorf("openvex document lacks a required field: @context %q @id %q author %q timestamp %q version %d",
			doc.Context, doc.ID, doc.Author, doc.Timestamp, doc.Version)
	}
	valid := map[string]bool{"not_affected": true, "affected": true, "fixed": true, "under_investigation": true}
	for i, s := range doc.Statements {
		if s.Vulnerability.Name == "" || !valid[s.Status] || len(s.Products) == 0 {
			t.Errorf("openvex statement %d lacks a vulnerability, a valid status or a product: %+v", i, s)
		}
	}
	return doc
}

func TestSARIFOutput(t *testing.T) {
	rep := fixtureReport(t)
	var out bytes.Buffer
	if err := vulns.WriteSARIF(context.Background(), &out, rep); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"results"`
			AutomationDetails struct {
				ID string `json:"id"`
			} `json:"automationDetails"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatalf("sarif output is not JSON: %v", err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif") {
		t.Errorf("sarif version %q schema %q, want 2.1.0", log.Version, log.Schema)
	}
	if len(log.Runs) != 2 {
		t.Fatalf("%d runs, want one per target (2)", len(log.Runs))
	}
	for _, run := range log.Runs {
		if run.Tool.Driver.Name == "" || run.AutomationDetails.ID == "" {
			t.Errorf("run lacks its tool name or automationDetails: %+v", run)
		}
		rules := map[string]bool{}
		for _, r := range run.Tool.Driver.Rules {
			rules[r.ID] = true
		}
		if !rules["GO-2022-1059"] {
			t.Errorf("no rule GO-2022-1059 in %v", rules)
		}
		for _, r := range run.Results {
			if !rules[r.RuleID] || r.Message.Text == "" {
				t.Errorf("result %+v names no rule of the run or has no message", r)
			}
		}
	}
}

func TestMarkdownIsATableOfFindingsByTarget(t *testing.T) {
	rep := fixtureReport(t)
	var out bytes.Buffer
	if err := vulns.WriteMarkdown(&out, rep); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	var header, called string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| Vulnerability") {
			header = line
		}
		if strings.Contains(line, "GO-2022-1059") {
			called = line
		}
	}
	if header == "" || strings.Count(header, "|") != 4+len(rep.Targets)+1 {
		t.Errorf("header %q: want Vulnerability, Aliases, Module, Fixed in and one column per target", header)
	}
	if !strings.Contains(called, "**called** v0.3.7") || !strings.Contains(called, "CVE-2022-32149") || !strings.Contains(called, "v0.3.8") {
		t.Errorf("GO-2022-1059 row %q: want its alias, fix and the called level", called)
	}
}
