package status

import (
	"fmt"

	"github.com/epp-build/epp-build/internal/apply"
)

// treeNext are the commands that make t current, in the order they are
// needed: what a re-apply would lose or refuse is dealt with first, as
// apply itself asks (guard.LocalChangesError, UntrackedInTheWayError).
func treeNext(t *apply.OutTree) []string {
	if t.Current {
		return []string{}
	}
	reapply := fmt.Sprintf("epp-build apply --version %s --out %s", t.Version, t.Dir)
	var next []string
	if t.Interrupted {
		// What the tree holds is half of a re-apply: apply completes it,
		// and only then is there anything else to say.
		return []string{reapply + "  # completes the interrupted re-apply, then run status again"}
	}
	if len(t.Modified) > 0 || len(t.Commits) > 0 {
		keep := fmt.Sprintf("epp-build export --dir %s --to %s", t.Dir, t.RecipeDir)
		if len(t.Modified) > 0 {
			keep = fmt.Sprintf("git -C %s add -A && git -C %s commit && %s", t.Dir, t.Dir, keep)
		}
		return append(next,
			keep+"  # keep the changes in the series, then apply again",
			reapply+" --force  # or drop them; the old tree is kept as a backup")
	}
	if len(t.InTheWay) > 0 {
		next = append(next, fmt.Sprintf("move or delete the untracked files in the way in %s (or commit them and export)", t.Dir))
	}
	if len(t.Reasons) > 0 {
		return append(next, reapply)
	}
	// The series is the recipe's and nothing would be lost: apply sees
	// nothing to do, so HEAD goes back by hand.
	if t.HeadMoved {
		next = append(next, fmt.Sprintf("git -C %s reset --hard %s  # back to where apply left HEAD", t.Dir, t.AppliedHead))
	}
	return next
}
