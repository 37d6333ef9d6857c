package attest

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// scanLines are what inspect says of each scan referrer: the findings by
// level per platform, the database and when the scan ran.
func (img *Image) scanLines() []string {
	var out []string
	for _, s := range img.Scans {
		p := s.Statement.Predicate
		res := p.Scanner.Result
		var levels []string
		if res.Report != nil {
			for _, t := range res.Report.Targets {
				c := t.Counts()
				levels = append(levels, fmt.Sprintf("%s %d called, %d imported, %d required, %d suppressed", t.Platform, c.Called, c.Imported, c.Required, c.Suppressed))
			}
		}
		failOn := "-"
		if res.Report != nil && res.Report.FailOn != "" {
			failOn = string(res.Report.FailOn)
		}
		db := p.Scanner.DB.URI
		if p.Scanner.DB.Version != "" {
			db += " (modified " + p.Scanner.DB.Version + ")"
		}
		out = append(out, fmt.Sprintf("%s fail-on=%s: %s; db %s; scanned at %s", s.Digest, failOn, strings.Join(levels, "; "), db,
			p.Metadata.ScanStartedOn.UTC().Format(time.RFC3339)))
	}
	return out
}

func (img *Image) writeScansText(w io.Writer) {
	for _, l := range img.scanLines() {
		fmt.Fprintf(w, "%-12s%s\n", "vulns:", textsafe.Escape(l))
	}
}

func (img *Image) writeScansMarkdown(w io.Writer) {
	for _, l := range img.scanLines() {
		fmt.Fprintf(w, "\n**Vulnerability scan** %s\n", outfmt.Cell(l))
	}
}
