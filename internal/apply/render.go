package apply

import (
	"fmt"
	"io"
	"strings"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// The commands' words for what the stage returned; the work is elsewhere.

// WriteRegenerated says how many patches a regen rewrote, and which.
func WriteRegenerated(stdout io.Writer, g *Regenerated) {
	if g == nil {
		return
	}
	fmt.Fprintf(stdout, "%s: %d patches, %d rewritten\n", g.Version, len(g.Patches), len(g.Stale))
	for _, s := range g.Stale {
		fmt.Fprintf(stdout, "  %s\n", s.Patch)
	}
}

// WriteChecked says a checked series is up to date.
func WriteChecked(stdout io.Writer, g *Regenerated) {
	if g == nil || len(g.Stale) > 0 {
		return
	}
	fmt.Fprintf(stdout, "%s: %d patches up to date\n", g.Version, len(g.Patches))
	if g.Compiled != "" {
		fmt.Fprintf(stdout, "%s: %s\n", g.Version, g.Compiled)
	}
}

// WriteResult reports an apply: the regen (if any) and the result on
// stdout, why it re-applied and where hunks moved on log.
func WriteResult(stdout, log io.Writer, res *Result) {
	if res == nil {
		return
	}
	WriteRegenerated(stdout, res.Regenerated)
	o := res.Outcome
	if o == nil {
		WriteStaged(stdout, res.CAPI) // --capi-only applies nothing
		return
	}
	r, rec := res.Recipe, o.Record
	if c := o.Completed; c != nil {
		fmt.Fprintf(stdout, "completed the re-apply of %s (%d patches on %s, HEAD %s) that an interrupted run left half done in %s\n",
			textsafe.Escape(c.Version), len(c.Patches), gitformat.Short(c.UpstreamCommit), gitformat.Short(c.Head), o.Dir)
	}
	if o.AlreadyApplied {
		fmt.Fprintf(stdout, "already applied: %s already holds %s (%d patches on %s); nothing to do\n", o.Dir, r.Version, len(rec.Patches), gitformat.Short(rec.UpstreamCommit))
		WriteStaged(stdout, res.CAPI)
		return
	}
	for _, why := range o.Reasons {
		fmt.Fprintf(log, "re-applying: %s\n", textsafe.Escape(why))
	}
	if o.InPlace {
		fmt.Fprintf(log, "rewrote %d file(s) in place; the rest of the tree is untouched\n", len(o.Rewritten))
	}
	if len(o.Kept) > 0 {
		fmt.Fprintf(log, "kept %s of the previous tree (your remotes, settings and hooks)\n", strings.Join(o.Kept, " and "))
	}
	if o.Backup != "" {
		fmt.Fprintf(log, "kept the previous tree with its local changes in %s\n", o.Backup)
	}
	for _, a := range rec.Patches {
		for _, off := range a.Offsets {
			fmt.Fprintf(log, "note: %s: %s hunk %s applied at offset %+d lines\n", textsafe.Escape(a.File), textsafe.Escape(off.File), textsafe.Escape(off.Hunk), off.Lines)
		}
	}
	fmt.Fprintf(stdout, "applied %d patches of %s on %s (%s) in %s, HEAD %s\n",
		len(rec.Patches), r.Version, gitformat.Short(rec.UpstreamCommit), rec.Source(), o.Dir, gitformat.Short(rec.Head))
	WriteStaged(stdout, res.CAPI)
}

// WriteStaged says where the C API library went and how to build.
func WriteStaged(stdout io.Writer, s *StagedCAPI) {
	if s == nil {
		return
	}
	fmt.Fprintf(stdout, "staged the C API library (%s) in %s (not part of the series: listed in .git/info/exclude)\n",
		textsafe.Escape(s.Source), strings.Join(s.Files, ", "))
	fmt.Fprintf(stdout, "build with: %s\n", BuildCommand(s.Tags))
}

// BuildCommand is the go build that links the staged library with its
// variants' tags.
func BuildCommand(tags []string) string {
	if len(tags) == 0 {
		return "go build ./cmd/epp"
	}
	return "go build -tags " + strings.Join(tags, ",") + " ./cmd/epp"
}
