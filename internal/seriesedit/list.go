package seriesedit

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// Item is one patch of a version's stack, as `series` lists it.
type Item struct {
	// Number is the patch's position among the version's own patches:
	// the N that reword, drop, move and squash take. An inherited patch
	// has none (0): it is edited in the version that has it.
	Number  int    `json:"number"`
	File    string `json:"file"`
	Subject string `json:"subject"`
	// Version is the version folder that holds the patch; for an
	// inherited one, the base it comes from.
	Version   string `json:"version"`
	Inherited bool   `json:"inherited"`
}

// List is r's whole series in the order it applies: the patches r
// inherits with extends first, then its own, numbered as the edits
// number them (Resolve).
func List(r *recipe.Recipe) ([]Item, error) {
	items := make([]Item, 0, len(r.Series))
	inherited := r.Inherited()
	for i, sp := range r.Series {
		parts, err := patchset.ParseFile(sp.Path, sp.Name)
		if err != nil {
			return nil, err
		}
		it := Item{File: sp.Name, Version: sp.Version, Inherited: i < inherited}
		if len(parts) > 0 && parts[0].Header != nil {
			it.Subject = parts[0].Header.Title
		}
		if !it.Inherited {
			it.Number = i - inherited + 1
		}
		items = append(items, it)
	}
	return items, nil
}

// WriteList prints the stack as quilt's series does, one patch a line,
// with the number the edits take; an inherited patch shows "-" and the
// version it comes from instead.
func WriteList(w io.Writer, version string, items []Item) error {
	if len(items) == 0 {
		_, err := fmt.Fprintf(w, "%s has no patches\n", textsafe.Escape(version))
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tPATCH\tSUBJECT")
	for _, it := range items {
		subject := textsafe.Escape(it.Subject)
		if it.Inherited {
			subject += "  (inherited from " + textsafe.Escape(it.Version) + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", number(it), textsafe.Escape(it.File), subject)
	}
	return tw.Flush()
}

// WriteListMarkdown prints the stack as a markdown table.
func WriteListMarkdown(w io.Writer, items []Item) error {
	rows := [][]string{{"#", "Patch", "Subject", "From"}}
	for _, it := range items {
		from := ""
		if it.Inherited {
			from = outfmt.Cell(it.Version)
		}
		rows = append(rows, []string{number(it), outfmt.Cell(it.File), outfmt.Cell(it.Subject), from})
	}
	return outfmt.Table(w, rows)
}

func number(it Item) string {
	if it.Inherited {
		return "-"
	}
	return strconv.Itoa(it.Number)
}
