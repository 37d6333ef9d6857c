package backport

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/epp-build/epp-build/internal/patchset"
)

// WritePicked names each picked patch.
func WritePicked(w io.Writer, p *Picked) {
	if p == nil {
		return
	}
	if p.Aborted {
		fmt.Fprintf(w, "pick into %s aborted; its work tree removed, recipes as they were\n", p.Version)
	}
	for _, name := range p.Names {
		fmt.Fprintf(w, "picked %s into %s\n", name, p.Version)
	}
	if !p.Aborted && len(p.Names) == 0 {
		// Every pick was skipped: say so, rather than print nothing
		// for a command that succeeded.
		fmt.Fprintf(w, "nothing picked into %s; its series is as it was\n", p.Version)
	}
}

// WriteRebased lists the steps of a rebase command and says how it ended.
func WriteRebased(w io.Writer, r *Rebased) {
	if r == nil {
		return
	}
	if r.Aborted {
		fmt.Fprintf(w, "rebase aborted; %s removed, recipes untouched\n", r.Dir)
		return
	}
	if len(r.Steps) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "PATCH\tOUTCOME")
		for _, s := range r.Steps {
			fmt.Fprintf(tw, "%s\t%s%s\n", s.Patch, s.Outcome, offsets(s.Offsets))
		}
		tw.Flush()
	}
	if r.Finished && r.Verified != "" {
		fmt.Fprintf(w, "verified: %s\n", r.Verified)
	}
	switch {
	case r.Removed:
		fmt.Fprintf(w, "rebase finished; its work tree %s removed (--keep keeps it)\n", r.Dir)
	case r.Finished:
		fmt.Fprintf(w, "rebase finished; the work tree %s is yours to inspect or remove\n", r.Dir)
	}
}

func offsets(moved []patchset.Offset) string {
	out := ""
	for _, o := range moved {
		out += fmt.Sprintf(" (%s %+d)", o.File, o.Lines)
	}
	return out
}
