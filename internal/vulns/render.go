package vulns

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// Format is a vulns -o value: the formats every command takes, and the
// scanner's own SARIF and OpenVEX.
type Format string

const (
	Text     Format = "text"
	JSON     Format = "json"
	Markdown Format = "markdown"
	SARIF    Format = "sarif"
	OpenVEX  Format = "openvex"
)

// FormatNames lists the values -o takes.
var FormatNames = []string{string(Text), string(JSON), string(Markdown), string(SARIF), string(OpenVEX)}

func (f *Format) String() string { return string(*f) }

// Set parses an -o value; a wrong one is a usage error when the flags are
// parsed.
func (f *Format) Set(s string) error {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "sarif":
		*f = SARIF
	case "openvex", "vex":
		*f = OpenVEX
	default:
		common, err := outfmt.Parse(v)
		if err != nil {
			return fmt.Errorf("output format %q: use %s (table is text)", s, strings.Join(FormatNames, ", "))
		}
		*f = Format(common)
	}
	return nil
}

// Type names the value in flag help.
func (f *Format) Type() string { return "format" }

// Write renders rep as f asks; verbose adds each suppression's reason to
// the text.
func Write(ctx context.Context, w io.Writer, rep *Report, f Format, verbose bool) error {
	switch f {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	case Markdown:
		return WriteMarkdown(w, rep)
	case SARIF:
		return WriteSARIF(ctx, w, rep)
	case OpenVEX:
		return WriteOpenVEX(ctx, w, rep)
	}
	return WriteText(w, rep, verbose)
}

// WriteText writes each target's findings, called first with a call path.
func WriteText(w io.Writer, rep *Report, verbose bool) error {
	var b strings.Builder
	for i, t := range rep.Targets {
		if i > 0 {
			b.WriteString("\n")
		}
		c := t.Counts()
		fmt.Fprintf(&b, "%s (%s", textsafe.Escape(t.Name), t.Mode)
		if len(t.Patterns) > 0 {
			fmt.Fprintf(&b, " %s", strings.Join(t.Patterns, " "))
		}
		if t.GoVersion != "" {
			fmt.Fprintf(&b, ", %s", t.GoVersion)
		}
		fmt.Fprintf(&b, ", %.1fs): %d called, %d imported, %d required only", t.Seconds, c.Called, c.Imported, c.Required)
		if c.Suppressed > 0 {
			fmt.Fprintf(&b, ", %d suppressed by --vex", c.Suppressed)
		}
		b.WriteString("\n")
		for _, f := range t.Findings {
			level := string(f.Level)
			if f.Suppressed != nil {
				level = "suppressed"
			}
			fmt.Fprintf(&b, "  %-10s %s  %s", level, f.ID, textsafe.Escape(moduleAt(f)))
			if f.Fixed != "" {
				fmt.Fprintf(&b, "  fixed in %s", textsafe.Escape(f.Fixed))
			} else {
				b.WriteString("  no fix")
			}
			if len(f.Aliases) > 0 {
				fmt.Fprintf(&b, "  (%s)", textsafe.Escape(strings.Join(f.Aliases, ", ")))
			}
			b.WriteString("\n")
			if f.Summary != "" && (f.Level == Called || verbose) {
				fmt.Fprintf(&b, "             %s\n", textsafe.Escape(outfmt.Shorten(f.Summary, 140)))
			}
			if f.Level == Called && f.Suppressed == nil || verbose && len(f.Trace) > 0 {
				fmt.Fprintf(&b, "             %s\n", textsafe.Escape(strings.Join(f.Trace, " -> ")))
			}
			if f.Suppressed != nil && verbose {
				fmt.Fprintf(&b, "             not_affected: %s\n", textsafe.Escape(reason(f.Suppressed)))
			}
		}
	}
	fmt.Fprintf(&b, "\ndatabase %s", textsafe.Escape(rep.DB))
	if rep.DBModified != nil {
		fmt.Fprintf(&b, " (modified %s)", rep.DBModified.Format("2006-01-02"))
	}
	fmt.Fprintf(&b, "; scanner %s\n", rep.Scanner)
	_, err := io.WriteString(w, b.String())
	return err
}

func moduleAt(f Finding) string {
	if f.Version == "" {
		return f.Module
	}
	return f.Module + "@" + f.Version
}

func reason(s *Suppression) string {
	switch {
	case s.Justification != "" && s.ImpactStatement != "":
		return s.Justification + ": " + s.ImpactStatement
	case s.Justification != "":
		return s.Justification
	}
	return s.ImpactStatement
}

// WriteMarkdown writes a table for a release review: one row per
// vulnerability and module, one column per target, each cell the level
// and the version found there.
func WriteMarkdown(w io.Writer, rep *Report) error {
	type row struct {
		id, module, fixed, aliases string
		rank                       int
		cells                      []string
	}
	var rows []*row
	byKey := map[string]*row{}
	for ti, t := range rep.Targets {
		for _, f := range t.Findings {
			k := f.ID + " " + f.Module
			r := byKey[k]
			if r == nil {
				r = &row{id: f.ID, module: f.Module, aliases: strings.Join(f.Aliases, ", "), rank: 3,
					cells: make([]string, len(rep.Targets))}
				byKey[k] = r
				rows = append(rows, r)
			}
			if r.fixed == "" {
				r.fixed = f.Fixed
			}
			cell := string(f.Level)
			rank := f.Level.rank()
			switch {
			case f.Suppressed != nil:
				cell, rank = "suppressed ("+f.Suppressed.Justification+")", 3
			case f.Level == Called:
				cell = "**called**"
			}
			if rank < r.rank {
				r.rank = rank
			}
			r.cells[ti] = cell + " " + outfmt.Cell(f.Version)
		}
	}
	// Most severe first, as the text lists them.
	sortRows := func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.module != b.module {
			return a.module < b.module
		}
		return a.id < b.id
	}
	sort.SliceStable(rows, sortRows)
	var b strings.Builder
	b.WriteString("Known vulnerabilities")
	fmt.Fprintf(&b, " (database %s", outfmt.Cell(rep.DB))
	if rep.DBModified != nil {
		fmt.Fprintf(&b, ", modified %s", rep.DBModified.Format("2006-01-02"))
	}
	fmt.Fprintf(&b, "; %s):\n\n", outfmt.Cell(rep.Scanner))
	for _, t := range rep.Targets {
		c := t.Counts()
		fmt.Fprintf(&b, "- %s (%s, %s): %d called, %d imported, %d required only, %d suppressed\n",
			outfmt.Cell(t.Name), t.Mode, outfmt.Cell(t.GoVersion), c.Called, c.Imported, c.Required, c.Suppressed)
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if len(rows) == 0 {
		_, err := io.WriteString(w, "No known vulnerabilities.\n")
		return err
	}
	header := []string{"Vulnerability", "Aliases", "Module", "Fixed in"}
	for _, t := range rep.Targets {
		header = append(header, outfmt.Cell(t.Name))
	}
	table := [][]string{header}
	for _, r := range rows {
		line := []string{"[" + r.id + "](https://pkg.go.dev/vuln/" + r.id + ")", outfmt.Cell(r.aliases), outfmt.Cell(r.module), outfmt.Cell(r.fixed)}
		for _, c := range r.cells {
			if c == "" {
				c = "-"
			}
			line = append(line, c)
		}
		table = append(table, line)
	}
	return outfmt.Table(w, table)
}

// unsuppressedStream is t's JSON stream without the findings --vex
// suppressed, for the scanner to convert.
func (t *Target) unsuppressedStream() ([]byte, error) {
	suppressed := map[string]bool{}
	for _, f := range t.Findings {
		if f.Suppressed != nil {
			suppressed[f.ID+" "+f.Module] = true
		}
	}
	if len(suppressed) == 0 {
		return t.stream, nil
	}
	var out bytes.Buffer
	dec := json.NewDecoder(bytes.NewReader(t.stream))
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read govulncheck's JSON output: %w", err)
		}
		var m message
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("read govulncheck's JSON output: %w", err)
		}
		if m.Finding != nil && len(m.Finding.Trace) > 0 && suppressed[m.Finding.OSV+" "+m.Finding.Trace[0].Module] {
			continue
		}
		out.Write(raw)
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

// convert has the scanner turn t's stream into its SARIF or OpenVEX.
func convert(ctx context.Context, t *Target, format string) (map[string]any, error) {
	stream, err := t.unsuppressedStream()
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	if err := govulncheck(ctx, nil, bytes.NewReader(stream), &stdout, &stderr, "-mode", "convert", "-format", format); err != nil {
		return nil, fmt.Errorf("%s of %s: %w", format, t.Name, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		return nil, fmt.Errorf("%s of %s: the scanner wrote no JSON document: %w", format, t.Name, err)
	}
	return doc, nil
}

// WriteSARIF writes the scanner's SARIF log; with several targets, one
// log holding a run per target, each run's automationDetails naming it.
func WriteSARIF(ctx context.Context, w io.Writer, rep *Report) error {
	var log map[string]any
	var runs []any
	for _, t := range rep.Targets {
		doc, err := convert(ctx, t, "sarif")
		if err != nil {
			return err
		}
		if log == nil {
			log = doc
		}
		rs, _ := doc["runs"].([]any)
		for _, r := range rs {
			if run, ok := r.(map[string]any); ok {
				run["automationDetails"] = map[string]any{"id": "epp-build-vulns/" + t.Name + "/"}
			}
			runs = append(runs, r)
		}
	}
	if log == nil {
		return errors.New("sarif: nothing was scanned")
	}
	log["runs"] = runs
	return writeJSON(w, log)
}

// WriteOpenVEX writes the scanner's OpenVEX document for one target, with
// the --vex statements that suppressed its findings added as written.
func WriteOpenVEX(ctx context.Context, w io.Writer, rep *Report) error {
	if len(rep.Targets) != 1 {
		return fmt.Errorf("openvex describes one scan, not %d: scan one line, folder or binary at a time", len(rep.Targets))
	}
	t := rep.Targets[0]
	doc, err := convert(ctx, t, "openvex")
	if err != nil {
		return err
	}
	if added := rep.vex.statementsFor(t.Findings); len(added) > 0 {
		stmts, _ := doc["statements"].([]any)
		for _, s := range added {
			stmts = append(stmts, s)
		}
		doc["statements"] = stmts
		// The scanner's @id is a hash of what it wrote; this is more.
		data, err := json.Marshal(stmts)
		if err != nil {
			return err
		}
		doc["@id"] = fmt.Sprintf("epp-build/vex:%x", sha256.Sum256(data))
	}
	return writeJSON(w, doc)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
