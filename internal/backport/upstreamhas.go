package backport

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/trailer"
)

// Ancestry says which of commits are in the history of pin in the
// repository (the source stage's History, wired by the caller).
type Ancestry func(ctx context.Context, repository string, commits []string, pin string) (map[string]bool, error)

// UpstreamHasIt is the outcome of a pick whose Upstream: commit the new pin
// already contains: it is dropped before the replay.
const UpstreamHasIt Outcome = "already upstream (its Upstream: commit is in the new pin; dropped)"

// upstreamCommit finds the commit an Upstream: trailer names: a full hash
// anywhere in it, or an abbreviated one after /commit/ (a forge's commit
// URL). A pull request URL names no commit.
var (
	fullCommit    = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	commitURLPart = regexp.MustCompile(`/commits?/([0-9a-f]{7,40})\b`)
)

func upstreamCommit(p *patchset.Patch) string {
	for _, v := range trailer.Parse(p.Header.Body).Values("Upstream") {
		if m := fullCommit.FindString(v); m != "" {
			return m
		}
		if m := commitURLPart.FindStringSubmatch(v); m != nil {
			return m[1]
		}
	}
	return ""
}

// withoutUpstreamPicks leaves out of r's series the patches whose
// Upstream: commit is an ancestor of the new pin u, and says so. When the
// history cannot be read, nothing is left out (the replay still drops a
// patch whose change is already in the tree) and a notice says why.
func withoutUpstreamPicks(ctx context.Context, r *recipe.Recipe, u recipe.Upstream, repository string, ancestry Ancestry, log io.Writer) (*recipe.Recipe, []Step, error) {
	byCommit := map[string][]string{}
	var commits []string
	for _, sp := range r.Series {
		ps, err := patchset.ParseFile(sp.Path, sp.Name)
		if err != nil {
			return nil, nil, err
		}
		if len(ps) != 1 {
			continue
		}
		if c := upstreamCommit(ps[0]); c != "" {
			if len(byCommit[c]) == 0 {
				commits = append(commits, c)
			}
			byCommit[c] = append(byCommit[c], sp.Name)
		}
	}
	if len(commits) == 0 || ancestry == nil {
		return r, nil, nil
	}
	in, err := ancestry(ctx, repository, commits, u.Commit)
	if err != nil {
		fmt.Fprintf(log, "notice: could not tell whether the new pin has the picks' Upstream: commits (%v); the replay drops those whose change is already there\n", err)
		return r, nil, nil
	}
	drop := map[string]string{}
	for _, c := range commits {
		if in[c] {
			for _, name := range byCommit[c] {
				drop[name] = c
			}
		}
	}
	if len(drop) == 0 {
		return r, nil, nil
	}
	kept := *r
	kept.Series = nil
	var steps []Step
	for _, sp := range r.Series {
		if c, ok := drop[sp.Name]; ok {
			steps = append(steps, Step{Patch: sp.Name, Outcome: UpstreamHasIt})
			fmt.Fprintf(log, "%s: already upstream: its Upstream: commit %s is in %s; dropped\n", sp.Name, shortHash(c), shortHash(u.Commit))
			continue
		}
		kept.Series = append(kept.Series, sp)
	}
	return &kept, steps, nil
}

func shortHash(s string) string {
	if strings.ContainsAny(s, "./:") {
		return s // a URL or a ref, not a hash
	}
	return gitformat.Short(s)
}
