package review

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// ReleaseNotes is what changed in a line between two versions, for a
// release pull request: the pins, the known vulnerabilities the newer
// version fixes, and every patch added, dropped or changed (a patch that
// only moved with the upstream is left out).
type ReleaseNotes struct {
	Version string   `json:"version"`
	Since   string   `json:"since"`
	Pins    Pins     `json:"pins"`
	Fixes   Fixes    `json:"fixes"`
	Patches []Change `json:"patches"`
	Moved   int      `json:"movedPatches"`
	Same    int      `json:"samePatches"`
}

// Since compiles the release notes of version since an earlier one.
func Since(ctx context.Context, root, since, version string, history History) (*ReleaseNotes, error) {
	changes, err := DiffVersions(root, since, version)
	if err != nil {
		return nil, err
	}
	pins, err := ComparePins(ctx, root, since, version, history)
	if err != nil {
		return nil, err
	}
	fixes, err := CompareFixes(root, since, version)
	if err != nil {
		return nil, err
	}
	n := &ReleaseNotes{Version: version, Since: since, Pins: pins, Fixes: fixes, Patches: []Change{}}
	for _, c := range changes {
		switch c.Kind {
		case "same":
			n.Same++
		case "moved":
			n.Moved++
		default:
			n.Patches = append(n.Patches, c)
		}
	}
	return n, nil
}

// WriteSince prints the release notes for a terminal.
func WriteSince(w io.Writer, n *ReleaseNotes) error {
	fmt.Fprintf(w, "%s since %s\n\n", textsafe.Escape(n.Version), textsafe.Escape(n.Since))
	if err := WritePins(w, n.Pins); err != nil {
		return err
	}
	if err := writeFixes(w, n.Fixes); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if len(n.Patches) == 0 {
		fmt.Fprintln(w, "no patch added, dropped or changed")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CHANGE\tPATCH\tUPSTREAM\tREASON")
		for _, c := range n.Patches {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Kind, textsafe.Escape(c.Subject), textsafe.Escape(orNone(c.Upstream)), textsafe.Escape(orNone(c.Reason)))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%d patch(es) carried unchanged, %d moved with the upstream\n", n.Same, n.Moved)
	return err
}

// WriteSinceMarkdown prints the release notes for a pull request.
func WriteSinceMarkdown(w io.Writer, n *ReleaseNotes) error {
	fmt.Fprintf(w, "## %s since %s\n\n", outfmt.Cell(n.Version), outfmt.Cell(n.Since))
	if err := WritePinsMarkdown(w, n.Pins); err != nil {
		return err
	}
	if err := writeFixesMarkdown(w, n.Fixes); err != nil {
		return err
	}
	fmt.Fprintf(w, "### Patches\n\n")
	if len(n.Patches) == 0 {
		fmt.Fprintf(w, "No patch added, dropped or changed.\n\n")
	} else {
		rows := [][]string{{"Change", "Patch", "File", "Upstream", "Reason"}}
		for _, c := range n.Patches {
			file := c.New
			if file == "" {
				file = c.Old
			}
			rows = append(rows, []string{c.Kind, outfmt.Cell(c.Subject), codeOrDash(file), links(c.Upstream), cells(c.Reason)})
		}
		if err := outfmt.Table(w, rows); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	_, err := fmt.Fprintf(w, "%d patch(es) carried unchanged, %d moved with the upstream.\n", n.Same, n.Moved)
	return err
}
