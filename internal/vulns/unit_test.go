package vulns_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/vulns"
)

// These tests need neither the network nor the database: hand-written OSV
// entries and a hand-written scanner stream in govulncheck's JSON shape.

func decodeFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func writeOSV(t *testing.T, dir, id, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestIndexOSVOnHandWrittenEntries(t *testing.T) {
	src := t.TempDir()
	writeOSV(t, src, "GO-2099-0001", `{"id": "GO-2099-0001", "modified": "2099-01-02T00:00:00Z", "aliases": ["CVE-2099-1"],
	  "affected": [
	    {"package": {"name": "example.com/a"}, "ranges": [{"type": "SEMVER", "events": [{"introduced": "0"}, {"fixed": "1.2.0"}]}]},
	    {"package": {"name": "example.com/a"}, "ranges": [{"type": "SEMVER", "events": [{"introduced": "2.0.0"}, {"fixed": "2.3.1"}]}]},
	    {"package": {"name": "example.com/b"}, "ranges": [{"type": "SEMVER", "events": [{"introduced": "0"}, {"fixed": "1.0.0"}, {"introduced": "1.5.0"}]}]}]}`)
	writeOSV(t, src, "GO-2099-0002", `{"id": "GO-2099-0002", "modified": "2098-01-01T00:00:00Z",
	  "affected": [
	    {"package": {"name": "example.com/a"}, "ranges": [{"type": "SEMVER", "events": [{"introduced": "0"}, {"fixed": "1.1.0"}]}]},
	    {"package": {"name": "example.com/a"}, "ranges": [{"type": "SEMVER", "events": [{"introduced": "1.0.0"}]}]}]}`)
	out := filepath.Join(t.TempDir(), "db")
	pinned := time.Date(2090, 1, 1, 0, 0, 0, 0, time.UTC)
	stats, err := vulns.IndexOSV(src, out, pinned)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Entries != 2 || stats.Modules != 2 || !stats.Modified.Equal(time.Date(2099, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("stats %+v, want 2 entries, 2 modules, the newest entry's time", stats)
	}
	var modules []struct {
		Path  string
		Vulns []struct{ ID, Fixed string }
	}
	decodeFile(t, filepath.Join(out, "index", "modules.json"), &modules)
	got := map[string]string{}
	for _, m := range modules {
		for _, v := range m.Vulns {
			got[m.Path+" "+v.ID] = v.Fixed
		}
	}
	want := map[string]string{
		"example.com/a GO-2099-0001": "2.3.1", // the latest of two fixed branches
		"example.com/b GO-2099-0001": "",      // reintroduced after its fix
		"example.com/a GO-2099-0002": "",      // one block never fixed
	}
	if len(got) != len(want) {
		t.Errorf("modules.json rows %v, want %v", got, want)
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s: fixed %q (listed %v), want %q", k, g, ok, w)
		}
	}
	entry, err := os.ReadFile(filepath.Join(out, "ID", "GO-2099-0001.json"))
	if err != nil || !bytes.Contains(entry, []byte(`"CVE-2099-1"`)) {
		t.Errorf("ID/GO-2099-0001.json is not the entry as written: %v", err)
	}

	hostile := t.TempDir()
	writeOSV(t, hostile, "x", `{"id": "../../escape", "affected": []}`)
	if _, err := vulns.IndexOSV(hostile, filepath.Join(t.TempDir(), "db"), pinned); err == nil || !strings.Contains(err.Error(), "not a Go database id") {
		t.Errorf("an id that is a path: err = %v, want a refusal", err)
	}
}

// stream is what govulncheck -json writes for a program that calls one
// vulnerable function, imports a vulnerable package and requires a
// vulnerable module, and is built with a vulnerable Go.
const stream = `{"config": {"protocol_version": "v1.0.0", "scanner_name": "govulncheck", "go_version": "go1.26.8", "scan_level": "symbol", "scan_mode": "source"}}
{"osv": {"id": "GO-2022-1059", "aliases": ["CVE-2022-32149", "GHSA-69ch-w2m2-3vjp"], "summary": "Denial of service via crafted Accept-Language header"}}
{"osv": {"id": "GO-2020-0019", "aliases": ["CVE-2020-27813"], "details": "Integer overflow.\nMore."}}
{"osv": {"id": "GO-2026-6603", "summary": "HTTP/2 server memory exhaustion"}}
{"finding": {"osv": "GO-2022-1059", "fixed_version": "v0.3.8", "trace": [{"module": "golang.org/x/text", "version": "v0.3.7"}]}}
{"finding": {"osv": "GO-2022-1059", "fixed_version": "v0.3.8", "trace": [{"module": "golang.org/x/text", "version": "v0.3.7", "package": "golang.org/x/text/language"}]}}
{"finding": {"osv": "GO-2022-1059", "fixed_version": "v0.3.8", "trace": [
  {"module": "golang.org/x/text", "version": "v0.3.7", "package": "golang.org/x/text/language", "function": "ParseAcceptLanguage"},
  {"module": "example.com/m", "package": "example.com/m/internal/h", "function": "ServeHTTP", "receiver": "*Handler"},
  {"module": "example.com/m", "package": "example.com/m/cmd/epp", "function": "main"}]}}
{"finding": {"osv": "GO-2020-0019", "fixed_version": "v1.4.1", "trace": [{"module": "github.com/gorilla/websocket", "version": "v1.4.0", "package": "github.com/gorilla/websocket"}]}}
{"finding": {"osv": "GO-2026-6629", "fixed_version": "v0.41.0", "trace": [{"module": "golang.org/x/text", "version": "v0.3.7"}]}}
{"finding": {"osv": "GO-2026-6603", "fixed_version": "v1.26.9", "trace": [
  {"module": "stdlib", "version": "v1.26.8", "package": "net/http", "function": "String", "receiver": "http2Setting"},
  {"module": "example.com/m", "package": "example.com/m/cmd/epp", "function": "main"}]}}
`

func TestParseStreamClassifies(t *testing.T) {
	fs, err := vulns.ParseStream([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, strings.Join([]string{string(f.Level), f.ID, f.Module, f.Version, f.Fixed}, " "))
	}
	want := []string{
		"called GO-2022-1059 golang.org/x/text v0.3.7 v0.3.8",
		"called GO-2026-6603 stdlib go1.26.8 go1.26.9",
		"imported GO-2020-0019 github.com/gorilla/websocket v1.4.0 v1.4.1",
		"required GO-2026-6629 golang.org/x/text v0.3.7 v0.41.0",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantTrace := []string{"example.com/m/cmd/epp.main", "example.com/m/internal/h.(*Handler).ServeHTTP", "golang.org/x/text/language.ParseAcceptLanguage"}
	if !slices.Equal(fs[0].Trace, wantTrace) {
		t.Errorf("trace %v, want %v (the program's own function first)", fs[0].Trace, wantTrace)
	}
	if fs[1].Trace[1] != "net/http.http2Setting.String" {
		t.Errorf("value receiver: %v", fs[1].Trace)
	}
	if !slices.Equal(fs[0].Aliases, []string{"CVE-2022-32149", "GHSA-69ch-w2m2-3vjp"}) || fs[2].Summary != "Integer overflow." {
		t.Errorf("aliases %v, summary from details %q", fs[0].Aliases, fs[2].Summary)
	}
	if _, err := vulns.ParseStream([]byte(`{"config": `)); err == nil {
		t.Error("a cut stream parses")
	}
}

func TestGoVersionNames(t *testing.T) {
	for _, c := range [][3]string{
		{"stdlib", "v1.26.8", "go1.26.8"},
		{"stdlib", "v1.20.0", "go1.20"},
		{"stdlib", "v1.21.0", "go1.21.0"},
		{"toolchain", "v1.21.0-rc.2", "go1.21rc2"},
		{"stdlib", "", ""},
		{"golang.org/x/net", "v0.40.0", "v0.40.0"},
	} {
		if got := vulns.GoVersion(c[0], c[1]); got != c[2] {
			t.Errorf("%s %s = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestVEXMatchesByNameAliasAndModule(t *testing.T) {
	dir := t.TempDir()
	doc := func(statements string) string {
		path := filepath.Join(dir, "vex.json")
		if err := os.WriteFile(path, []byte(`{"@context": "https://openvex.dev/ns/v0.2.0", "statements": [`+statements+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	fresh := func() []vulns.Finding {
		fs, err := vulns.ParseStream([]byte(stream))
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	suppressed := func(fs []vulns.Finding) []string {
		var ids []string
		for _, f := range fs {
			if f.Suppressed != nil {
				ids = append(ids, f.ID+" "+f.Module)
			}
		}
		return ids
	}
	for name, c := range map[string]struct {
		statements string
		want       []string
	}{
		"by alias": {`{"vulnerability": {"name": "CVE-2022-32149"}, "status": "not_affected", "justification": "vulnerable_code_not_in_execute_path"}`,
			[]string{"GO-2022-1059 golang.org/x/text"}},
		"by @id": {`{"vulnerability": {"@id": "https://pkg.go.dev/vuln/GO-2026-6603"}, "status": "not_affected", "impact_statement": "no HTTP/2 server"}`,
			[]string{"GO-2026-6603 stdlib"}},
		"other module": {`{"vulnerability": {"name": "GO-2022-1059"}, "products": [{"@id": "x", "subcomponents": [{"@id": "pkg:golang/golang.org/x/net@v0.1.0"}]}], "status": "not_affected", "justification": "component_not_present"}`,
			nil},
		"undone later": {`{"vulnerability": {"name": "GO-2022-1059"}, "status": "not_affected", "justification": "component_not_present"},
			{"vulnerability": {"name": "GO-2022-1059"}, "status": "affected"}`, nil},
		"affected": {`{"vulnerability": {"name": "GO-2022-1059"}, "status": "under_investigation"}`, nil},
	} {
		fs := fresh()
		if err := vulns.Suppress(doc(c.statements), fs); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := suppressed(fs); !slices.Equal(got, c.want) {
			t.Errorf("%s: suppressed %v, want %v", name, got, c.want)
		}
	}
	err := vulns.Suppress(doc(`{"vulnerability": {"name": "GO-2022-1059"}, "status": "not_affected"}`), fresh())
	var vexErr *vulns.VEXError
	if !errors.As(err, &vexErr) {
		t.Errorf("not_affected without a reason: err = %v, want a *VEXError", err)
	}
}

func TestTextAndMarkdownOfAReport(t *testing.T) {
	fs, err := vulns.ParseStream([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	fs[2].Suppressed = &vulns.Suppression{Justification: "vulnerable_code_not_present", ImpactStatement: "never dialled"}
	rep := &vulns.Report{DB: "file:///db", Scanner: "govulncheck (golang.org/x/vuln v1.9.0)", Targets: []*vulns.Target{
		{Name: "v0.7.0", Kind: "line", Mode: "source", Patterns: []string{"./cmd/epp"}, GoVersion: "go1.26.8", Findings: fs},
		{Name: "v1.4.2", Kind: "line", Mode: "source", GoVersion: "go1.26.8", Findings: fs[1:2]},
	}}
	var quiet, verbose, md bytes.Buffer
	if err := vulns.WriteText(&quiet, rep, false); err != nil {
		t.Fatal(err)
	}
	if err := vulns.WriteText(&verbose, rep, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"v0.7.0 (source ./cmd/epp, go1.26.8, 0.0s): 2 called, 0 imported, 1 required only, 1 suppressed by --vex",
		"example.com/m/cmd/epp.main -> example.com/m/internal/h.(*Handler).ServeHTTP -> golang.org/x/text/language.ParseAcceptLanguage",
		"stdlib@go1.26.8  fixed in go1.26.9", "suppressed GO-2020-0019"} {
		if !strings.Contains(quiet.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, quiet.String())
		}
	}
	if strings.Contains(quiet.String(), "never dialled") || !strings.Contains(verbose.String(), "not_affected: vulnerable_code_not_present: never dialled") {
		t.Errorf("the justification is for -v only:\n%s\n-v:\n%s", quiet.String(), verbose.String())
	}
	if err := vulns.WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| Vulnerability | Aliases | Module | Fixed in | v0.7.0 | v1.4.2 |",
		"| [GO-2026-6603](https://pkg.go.dev/vuln/GO-2026-6603) | - | stdlib | go1.26.9 | **called** go1.26.8 | **called** go1.26.8 |",
		"| required v0.3.7 | - |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	var called *vulns.CalledError
	if err := rep.Err(); !errors.As(err, &called) || called.Called["v0.7.0"] != 2 || called.Called["v1.4.2"] != 1 {
		t.Errorf("Err() = %v, want 2 called in v0.7.0 and 1 in v1.4.2", err)
	}
}

func TestAWorkspaceMissingAModuleIsTurnedOff(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/gaie\n")
	write("go.work", "go 1.24\n\nuse (\n\t.\n\t./conformance\n)\n")
	if env := vulns.WorkEnv(dir, []string{"A=1"}); !slices.Equal(env, []string{"A=1", "GOWORK=off"}) {
		t.Errorf("conformance/ missing: env %v, want GOWORK=off added", env)
	}
	write("conformance/go.mod", "module example.com/gaie/conformance\n")
	if env := vulns.WorkEnv(dir, []string{"A=1"}); !slices.Equal(env, []string{"A=1"}) {
		t.Errorf("every module present: env %v, want it as it was", env)
	}
	if env := vulns.WorkEnv(t.TempDir(), nil); env != nil {
		t.Errorf("no go.work: env %v", env)
	}
}
