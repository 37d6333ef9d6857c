package review

import (
	"fmt"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/textsafe"
	"github.com/epp-build/epp-build/internal/trailer"
)

// Problem is one lint finding.
type Problem struct {
	Version string `json:"version"`
	Patch   string `json:"patch,omitempty"`
	Message string `json:"message"`
	// Detail is the rest of a notice: its Message is one line for
	// stderr, and -v or the JSON document give the whole of it.
	Detail string `json:"detail,omitempty"`
	// Refused marks a recipe or patch that does not load at all (apply
	// refuses it as input, exit 4), as against a finding about a series
	// that loads.
	Refused bool `json:"refused,omitempty"`
	// Notice marks a finding a reader should know about that is not a
	// fault, such as a recipe checked at a commit rather than at the
	// release it names; lint does not fail on notices.
	Notice bool `json:"notice,omitempty"`
	// Mismatch marks a pin its upstream tree contradicts (a module hash
	// that is not the tree's), exit 5 as for apply.
	Mismatch bool `json:"mismatch,omitempty"`
}

// String is the problem for a terminal: text from patches is escaped.
func (p Problem) String() string {
	prefix := ""
	if p.Notice {
		prefix = "notice: "
	}
	if p.Patch == "" {
		return textsafe.Escape(prefix + p.Version + ": " + p.Message)
	}
	return textsafe.Escape(prefix + p.Version + ": " + p.Patch + ": " + p.Message)
}

// Failures counts the problems that are not notices.
func Failures(problems []Problem) int {
	n := 0
	for _, p := range problems {
		if !p.Notice {
			n++
		}
	}
	return n
}

// Refused counts the problems that are refused input rather than findings.
func Refused(problems []Problem) int {
	n := 0
	for _, p := range problems {
		if p.Refused {
			n++
		}
	}
	return n
}

// Lint checks every recipe under root: it loads (pins well formed, list
// and files agree), each patch says why it exists and where it comes
// from, and no patch edits lines another patch edits unless it says why
// the order matters (an Order: trailer). It adds notices for recipes that
// do not say what Dynamo release they reproduce or were checked only at a
// commit.
func Lint(root string) ([]Problem, error) {
	versions, err := recipe.Versions(root)
	if err != nil {
		return nil, err
	}
	return LintVersions(root, versions)
}

// LintVersions is Lint for the named versions only. None found is an
// empty list, which -o json shows as [].
func LintVersions(root string, versions []string) ([]Problem, error) {
	out := []Problem{}
	for _, v := range versions {
		r, err := recipe.LoadVersion(root, v)
		if err != nil {
			out = append(out, Problem{Version: v, Message: err.Error(), Refused: true})
			continue
		}
		out = append(out, reproducesNotices(r)...)
		out = append(out, recipeProblems(r)...)
		entries, err := Log(r)
		if err != nil {
			out = append(out, Problem{Version: v, Message: err.Error(), Refused: true})
			continue
		}
		own := map[string]bool{}
		for _, name := range r.Patches {
			own[name] = true
		}
		for i, e := range entries {
			if !own[e.File] {
				continue // the base version is linted on its own
			}
			out = append(out, metadataProblems(v, e)...)
			for _, earlier := range entries[:i] {
				if msg := overlap(earlier, e); msg != "" && len(trailer.Parse(e.patch.Header.Body).Values("Order")) == 0 {
					out = append(out, Problem{Version: v, Patch: e.File, Message: msg + "; say why the order matters in an Order: trailer, or merge the patches"})
				}
			}
		}
	}
	return out, nil
}

func metadataProblems(v string, e Entry) []Problem {
	var out []Problem
	body := strings.TrimSpace(e.patch.Header.Body)
	tr := trailer.Parse(body)
	if strings.TrimSpace(trailer.Prose(body)) == "" {
		out = append(out, Problem{Version: v, Patch: e.File, Message: "the message has no body saying why the patch exists"})
	}
	if len(tr.Values("Upstream")) == 0 && len(tr.Values("Reason")) == 0 {
		out = append(out, Problem{Version: v, Patch: e.File, Message: "no Upstream: or Reason: trailer: say where the change comes from or why it is carried"})
	}
	return out
}

// overlap says whether b changes lines that a changed (same file, b's
// preimage range meets a's postimage range).
func overlap(a, b Entry) string {
	for _, fb := range b.patch.Files {
		for _, fa := range a.patch.Files {
			if fa.NewName == "" || fb.OldName != fa.NewName {
				continue
			}
			for _, hb := range fb.TextFragments {
				for _, ha := range fa.TextFragments {
					if rangesMeet(changedRange(ha, false), changedRange(hb, true)) {
						return fmt.Sprintf("changes lines of %s that %s also changes (hunk %s)", fb.OldName, a.File, strings.TrimSpace(hb.Header()))
					}
				}
			}
		}
	}
	return ""
}

// changedRange is the line range a hunk changes, without its context: on
// the old side for old, else on the new side.
func changedRange(f *gitdiff.TextFragment, old bool) [2]int64 {
	pos := f.NewPosition
	if old {
		pos = f.OldPosition
	}
	first, last := int64(-1), int64(-1)
	n := pos
	for _, l := range f.Lines {
		isOld, isNew := l.Op != gitdiff.OpAdd, l.Op != gitdiff.OpDelete
		if (old && !isOld) || (!old && !isNew) {
			if l.Op != gitdiff.OpContext {
				if first < 0 {
					first = n
				}
				last = n
			}
			continue
		}
		if l.Op != gitdiff.OpContext {
			if first < 0 {
				first = n
			}
			last = n
		}
		n++
	}
	return [2]int64{first, last}
}

func rangesMeet(a, b [2]int64) bool {
	if a[0] < 0 || b[0] < 0 {
		return false
	}
	return a[0] <= b[1] && b[0] <= a[1]
}

// reproducesNotices tells the reader where a recipe's name promises more
// than its facts were checked against.
func reproducesNotices(r *recipe.Recipe) []Problem {
	p := r.Reproduces
	switch {
	case r.Derived != nil:
		return []Problem{{Version: r.Version, Notice: true, Message: r.Derived.String() + ": a rebase made it, and it reproduces no Dynamo release of its own"}}
	case p == nil:
		return []Problem{{Version: r.Version, Notice: true, Message: "does not say what Dynamo release it reproduces (add a reproduces: block: release, commit, checked, note)"}}
	case !p.AtRelease():
		return []Problem{{Version: r.Version, Notice: true, Message: fmt.Sprintf("reproduces %s as Dynamo commit %s, not checked at the %s release", p.Release, gitformat.Short(p.Commit), p.Release), Detail: p.Note}}
	}
	return nil
}
