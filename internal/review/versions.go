package review

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// Version is one release version under the recipes folder with its
// upstream pin; a recipe that does not load says why in Error.
type Version struct {
	Version    string `json:"version"`
	Repository string `json:"repository"`
	Ref        string `json:"ref"`
	Commit     string `json:"commit"`
	Patches    int    `json:"patches"`
	Extends    string `json:"extends,omitempty"`
	// Reproduces is the Dynamo release the recipe stands for and where
	// its facts were checked; nil when the recipe does not say.
	Reproduces *recipe.Reproduces `json:"reproduces,omitempty"`
	// Derived is the version the recipe was made from by a rebase, and
	// the pin it went onto; nil for a recipe no rebase --as made.
	Derived *recipe.Derived `json:"derived,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// Versions lists every version under root, an invalid one included.
func Versions(root string) ([]Version, error) {
	names, err := recipe.Versions(root)
	if err != nil {
		return nil, err
	}
	rows := make([]Version, 0, len(names))
	for _, v := range names {
		row := Version{Version: v}
		r, err := recipe.LoadVersion(root, v)
		if err != nil {
			row.Error = err.Error()
		} else {
			row.Repository, row.Ref, row.Commit, row.Patches, row.Extends = redact.URL(r.Upstream.Repository), r.Upstream.Ref, r.Upstream.Commit, len(r.Series), r.Extends
			row.Reproduces, row.Derived = r.Reproduces, r.Derived
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// WriteVersions prints the versions as a table.
func WriteVersions(w io.Writer, rows []Version) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tREPRODUCES\tCHECKED AT\tEXTENDS\tUPSTREAM REF\tCOMMIT\tPATCHES\tREPOSITORY")
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\tinvalid: %s\n", r.Version, textsafe.Escape(r.Error))
			continue
		}
		extends := r.Extends
		if extends == "" {
			extends = "-"
		}
		release, checked := reproduces(r.Reproduces, r.Derived)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Version, textsafe.Escape(release), checked, extends, gitformat.Short(r.Ref), gitformat.Short(r.Commit), r.Patches, r.Repository)
	}
	return tw.Flush()
}

// WriteVersionsMarkdown prints the versions as a Markdown table.
func WriteVersionsMarkdown(w io.Writer, rows []Version) error {
	table := [][]string{{"Version", "Reproduces", "Checked at", "Extends", "Upstream ref", "Commit", "Patches", "Repository"}}
	for _, r := range rows {
		if r.Error != "" {
			table = append(table, []string{outfmt.Cell(r.Version), "-", "-", "-", "-", "-", "-", "invalid: " + outfmt.Cell(r.Error)})
			continue
		}
		release, checked := reproduces(r.Reproduces, r.Derived)
		table = append(table, []string{outfmt.Cell(r.Version), outfmt.Cell(release), outfmt.Cell(checked), outfmt.Cell(r.Extends), outfmt.Cell(r.Ref), outfmt.Cell(r.Commit), fmt.Sprint(r.Patches), outfmt.Cell(r.Repository)})
	}
	return outfmt.Table(w, table)
}

// reproduces is a recipe's Dynamo release and where its facts were
// checked, for a table: "release <commit>" when read at the release's own
// sources, "commit <commit>" when only that commit could be read; for a
// recipe a rebase derived, what it came from.
func reproduces(p *recipe.Reproduces, d *recipe.Derived) (release, checked string) {
	if d != nil {
		return d.String(), "-"
	}
	if p == nil {
		return "unstated", "-"
	}
	return p.Release, p.Checked + " " + gitformat.Short(p.Commit)
}
