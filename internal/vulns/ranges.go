package vulns

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"golang.org/x/mod/semver"
)

// Range is one span of versions a vulnerability affects, in semver with a
// leading v (Go versions too: v1.26.8): from Introduced, included ("" =
// from the first version), to Fixed, excluded ("" = no version fixes it).
type Range struct {
	Introduced string `json:"introduced,omitempty"`
	Fixed      string `json:"fixed,omitempty"`
}

// Affects reports whether version v (semver with a leading v) is inside r.
func (r Range) Affects(v string) bool {
	return (r.Introduced == "" || semver.Compare(v, r.Introduced) >= 0) &&
		(r.Fixed == "" || semver.Compare(v, r.Fixed) < 0)
}

// RangeKey names the ranges of one vulnerability in one module.
func RangeKey(id, module string) string { return id + " " + module }

// Ranges are the affected version ranges of every vulnerability the scan
// of t read, by RangeKey: a finding's Fixed is only the first fix after
// the version found, and a plan that raises a module for several findings
// at once needs the whole ranges, where a fix of one may fall inside a
// range another reintroduced. Empty for a target read back from JSON.
func (t *Target) Ranges() (map[string][]Range, error) {
	out := map[string][]Range{}
	dec := json.NewDecoder(bytes.NewReader(t.stream))
	for {
		var m message
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if m.OSV == nil {
			continue
		}
		for _, a := range m.OSV.Affected {
			key := RangeKey(m.OSV.ID, a.Package.Name)
			for _, r := range a.Ranges {
				if r.Type == "SEMVER" {
					out[key] = append(out[key], spans(r)...)
				}
			}
		}
	}
}

// spans pairs an OSV range's events, which come in version order: each
// introduced opens a span, the next fixed closes it.
func spans(r osvRange) []Range {
	var out []Range
	var open *Range
	for _, ev := range r.Events {
		switch {
		case ev.Introduced != "":
			if open != nil {
				continue // already open: a second start changes nothing
			}
			intro := ""
			if ev.Introduced != "0" {
				intro = withV(ev.Introduced)
			}
			open = &Range{Introduced: intro}
		case ev.Fixed != "" && open != nil:
			open.Fixed = withV(ev.Fixed)
			out = append(out, *open)
			open = nil
		}
	}
	if open != nil {
		out = append(out, *open)
	}
	return out
}

func withV(v string) string { return "v" + strings.TrimPrefix(v, "v") }
