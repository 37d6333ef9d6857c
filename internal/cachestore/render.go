package cachestore

import (
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// WriteListing prints one line per kind, then the total and the folder.
func WriteListing(w io.Writer, l *Listing) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tENTRIES\tSIZE\tWHAT")
	for _, k := range l.Kinds {
		what := k.What
		if k.Stopped > 0 {
			what += fmt.Sprintf(" (%d stopped, kept by prune)", k.Stopped)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", k.Kind, k.Entries, progress.Bytes(k.Bytes), what)
	}
	fmt.Fprintf(tw, "total\t\t%s\t%s\n", progress.Bytes(l.Bytes), textsafe.Escape(l.Dir))
	return tw.Flush()
}

// WritePruned prints each entry removed and kept, with why, then what was
// freed.
func WritePruned(w io.Writer, p *Pruned) error {
	removed, freed := "removed", "freed"
	if p.DryRun {
		removed, freed = "would remove", "would free"
	}
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	for _, e := range p.Removed {
		fmt.Fprintf(tw, "%s\t%s\t(%s):\t%s\n", removed, rel(p.Dir, e.Path), progress.Bytes(e.Bytes), textsafe.Escape(e.Why))
	}
	for _, e := range p.Kept {
		fmt.Fprintf(tw, "kept\t%s\t(%s):\t%s\n", rel(p.Dir, e.Path), progress.Bytes(e.Bytes), textsafe.Escape(e.Why))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(p.Removed) == 0 {
		_, err := fmt.Fprintf(w, "nothing to prune in %s\n", textsafe.Escape(p.Dir))
		return err
	}
	_, err := fmt.Fprintf(w, "%s %s in %s\n", freed, progress.Bytes(p.BytesFreed), textsafe.Escape(p.Dir))
	return err
}

// rel is path as a line shows it: below the cache folder, escaped.
func rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && filepath.IsLocal(r) {
		path = r
	}
	return textsafe.Escape(path)
}

// WriteListingMarkdown is WriteListing as a markdown table.
func WriteListingMarkdown(w io.Writer, l *Listing) error {
	rows := [][]string{{"kind", "entries", "size", "what"}}
	for _, k := range l.Kinds {
		rows = append(rows, []string{outfmt.Cell(string(k.Kind)), fmt.Sprint(k.Entries), outfmt.Cell(progress.Bytes(k.Bytes)), outfmt.Cell(k.What)})
	}
	rows = append(rows, []string{"total", "", outfmt.Cell(progress.Bytes(l.Bytes)), outfmt.Cell(l.Dir)})
	return outfmt.Table(w, rows)
}

// WritePrunedMarkdown is WritePruned as a markdown table.
func WritePrunedMarkdown(w io.Writer, p *Pruned) error {
	removed, freed := "removed", "freed"
	if p.DryRun {
		removed, freed = "would remove", "would free"
	}
	rows := [][]string{{"", "entry", "size", "why"}}
	for _, e := range p.Removed {
		rows = append(rows, []string{removed, outfmt.Cell(rel(p.Dir, e.Path)), outfmt.Cell(progress.Bytes(e.Bytes)), outfmt.Cell(e.Why)})
	}
	for _, e := range p.Kept {
		rows = append(rows, []string{"kept", outfmt.Cell(rel(p.Dir, e.Path)), outfmt.Cell(progress.Bytes(e.Bytes)), outfmt.Cell(e.Why)})
	}
	rows = append(rows, []string{freed, "", outfmt.Cell(progress.Bytes(p.BytesFreed)), outfmt.Cell(p.Dir)})
	return outfmt.Table(w, rows)
}
