package recipe

import "fmt"

// CheckUpstream refuses a pin that no valid recipe holds, with the rules
// Validate applies to a recipe's upstream: a pin recorded elsewhere (a
// rebase's state) is written into a recipe and passed to git.
func CheckUpstream(u Upstream) error {
	r := &Recipe{Upstream: u}
	var problems []string
	if u.Repository == "" {
		problems = append(problems, "upstream.repository is missing")
	}
	if !fullSHA.MatchString(u.Commit) {
		problems = append(problems, fmt.Sprintf("upstream.commit %q is not a full commit id", u.Commit))
	}
	if u.ModuleHash != "" && !moduleHash.MatchString(u.ModuleHash) {
		problems = append(problems, fmt.Sprintf("upstream.moduleHash %q is not an h1: hash", u.ModuleHash))
	}
	problems = append(problems, r.checkArguments()...)
	if len(problems) > 0 {
		return &ValidationError{Problems: problems}
	}
	return nil
}
