package vulns

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/vuln/scan"

	"github.com/epp-build/epp-build/internal/progress"
)

// The messages of govulncheck's JSON stream (protocol v1.0.0), as much of
// them as the report reads; golang.org/x/vuln keeps its own types
// internal.
type (
	message struct {
		Config  *scanConfig `json:"config"`
		SBOM    *sbom       `json:"SBOM"`
		OSV     *osvEntry   `json:"osv"`
		Finding *finding    `json:"finding"`
	}
	scanConfig struct {
		ScannerName    string     `json:"scanner_name"`
		ScannerVersion string     `json:"scanner_version"`
		DBLastModified *time.Time `json:"db_last_modified"`
		GoVersion      string     `json:"go_version"`
		ScanLevel      string     `json:"scan_level"`
		ScanMode       string     `json:"scan_mode"`
	}
	sbom struct {
		GoVersion string `json:"go_version"`
	}
	// finding: Trace[0] is the vulnerable symbol, package or module (the
	// most precise the scan got to); the last frame is the program's own.
	finding struct {
		OSV          string  `json:"osv"`
		FixedVersion string  `json:"fixed_version"`
		Trace        []frame `json:"trace"`
	}
	frame struct {
		Module   string `json:"module"`
		Version  string `json:"version"`
		Package  string `json:"package"`
		Function string `json:"function"`
		Receiver string `json:"receiver"`
	}
)

// scannerName names the govulncheck built into this binary.
func scannerName() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "golang.org/x/vuln" {
				return "govulncheck (golang.org/x/vuln " + d.Version + ")"
			}
		}
	}
	return "govulncheck (golang.org/x/vuln)"
}

// run runs govulncheck in-process with args after -db and -json, fills t
// from its stream and returns the stream's config.
func run(ctx context.Context, t *Target, name, db string, env []string, shown *progress.Reporter, args ...string) (*scanConfig, error) {
	var stdout, stderr bytes.Buffer
	task := shown.Start(name, 0)
	start := time.Now()
	err := govulncheck(ctx, env, nil, &stdout, &stderr, append([]string{"-db", db, "-json"}, args...)...)
	t.Seconds = math.Round(time.Since(start).Seconds()*10) / 10
	if err != nil {
		task.Abort()
		return nil, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	task.Done()
	t.stream = stdout.Bytes()
	cfg, findings, err := parseStream(t.stream)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	t.Findings = findings
	if cfg != nil && t.GoVersion == "" {
		t.GoVersion = cfg.GoVersion
	}
	return cfg, nil
}

// govulncheck runs the scanner as its command would, with its stderr
// kept for the error: with -json it fails only when it could not scan.
func govulncheck(ctx context.Context, env []string, stdin io.Reader, stdout, stderr *bytes.Buffer, args ...string) error {
	cmd := scan.Command(ctx, args...)
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = stdin, stdout, stderr, env
	if err := cmd.Start(); err != nil {
		return err
	}
	err := cmd.Wait()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		return fmt.Errorf("govulncheck: %w:\n%s", err, lastLines(msg, 20))
	}
	return fmt.Errorf("govulncheck: %w", err)
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// parseStream classifies a JSON stream's findings: one per vulnerability
// and module, at the most precise level any finding reached, with the
// first call path the scanner gave.
func parseStream(stream []byte) (*scanConfig, []Finding, error) {
	var cfg *scanConfig
	osvs := map[string]*osvEntry{}
	type key struct{ id, module string }
	best := map[key]*Finding{}
	var order []key
	dec := json.NewDecoder(bytes.NewReader(stream))
	for {
		var m message
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("read govulncheck's JSON output: %w", err)
		}
		switch {
		case m.Config != nil:
			cfg = m.Config
		case m.SBOM != nil && cfg != nil && m.SBOM.GoVersion != "":
			// The binary's own Go, in binary mode.
			cfg.GoVersion = m.SBOM.GoVersion
		case m.OSV != nil:
			osvs[m.OSV.ID] = m.OSV
		case m.Finding != nil && len(m.Finding.Trace) > 0:
			f := classify(m.Finding)
			k := key{f.ID, f.Module}
			old := best[k]
			if old == nil {
				order = append(order, k)
			}
			if old == nil || f.Level.rank() < old.Level.rank() {
				best[k] = &f
			} else if old.Fixed == "" {
				old.Fixed = f.Fixed
			}
		}
	}
	findings := make([]Finding, 0, len(order))
	for _, k := range order {
		f := *best[k]
		if e := osvs[f.ID]; e != nil {
			f.Aliases, f.Summary = e.Aliases, e.Summary
			if f.Summary == "" {
				f.Summary = firstLine(e.Details)
			}
		}
		findings = append(findings, f)
	}
	sortFindings(findings)
	return cfg, findings, nil
}

func classify(fd *finding) Finding {
	top := fd.Trace[0]
	f := Finding{ID: fd.OSV, Module: top.Module, Version: moduleVersion(top.Module, top.Version),
		Fixed: moduleVersion(top.Module, fd.FixedVersion)}
	switch {
	case top.Function != "":
		f.Level = Called
		for i := len(fd.Trace) - 1; i >= 0; i-- {
			f.Trace = append(f.Trace, symbol(fd.Trace[i]))
		}
	case top.Package != "":
		f.Level = Imported
		f.Trace = []string{top.Package}
	default:
		f.Level = Required
	}
	return f
}

// symbol names a frame's function as Go's tools print it:
// golang.org/x/net/http2.(*Framer).ReadFrame.
func symbol(fr frame) string {
	switch {
	case fr.Receiver == "":
		return fr.Package + "." + fr.Function
	case strings.HasPrefix(fr.Receiver, "*"):
		return fr.Package + ".(" + fr.Receiver + ")." + fr.Function
	}
	return fr.Package + "." + fr.Receiver + "." + fr.Function
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Level != b.Level {
			return a.Level.rank() < b.Level.rank()
		}
		if a.Module != b.Module {
			return a.Module < b.Module
		}
		return a.ID < b.ID
	})
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// goModules are the names the scanner gives Go itself.
func isGo(module string) bool { return module == "stdlib" || module == "toolchain" }

// moduleVersion is v as people name it: a Go version (go1.26.8) for the
// standard library and the toolchain, whose versions the scanner gives
// in semver.
func moduleVersion(module, v string) string {
	if v == "" || !isGo(module) || strings.HasPrefix(v, "go") {
		return v
	}
	core, pre, _ := strings.Cut(strings.TrimPrefix(v, "v"), "-")
	parts := strings.Split(core, ".")
	// Before Go 1.21 the first release of a minor version has no ".0".
	if len(parts) == 3 && parts[2] == "0" && (pre != "" || minorBelow(parts[1], 21)) {
		parts = parts[:2]
	}
	return "go" + strings.Join(parts, ".") + strings.ReplaceAll(pre, ".", "")
}

func minorBelow(minor string, n int) bool {
	m, err := strconv.Atoi(minor)
	return err == nil && m < n
}
