package review

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
)

// recipeProblems checks what a recipe says about its pins: a description
// that names another upstream pin than the one it pins (left over from a
// rebase or a copy) is a problem; a repository on a loopback, private or
// local address is a notice, since nobody else can fetch from it (a test
// server may legitimately be one).
func recipeProblems(r *recipe.Recipe) []Problem {
	var out []Problem
	var others []string
	if r.CAPI != nil {
		others = append(others, r.CAPI.Commit)
	}
	if r.Reproduces != nil {
		others = append(others, r.Reproduces.Commit)
	}
	if foreign := recipe.ForeignPins(r.Description, r.Upstream, others...); len(foreign) > 0 {
		out = append(out, Problem{Version: r.Version, Message: fmt.Sprintf("the description %q names %s, but the recipe pins upstream %s: update the description",
			r.Description, strings.Join(foreign, ", "), recipe.PinName(r.Upstream))})
	}
	if d := r.Derived; d != nil && !d.OnPin(r.Upstream) {
		out = append(out, Problem{Version: r.Version, Message: fmt.Sprintf("derived.onto %s is not the recipe's upstream pin %s: set it to %s",
			d.Onto, recipe.PinName(r.Upstream), recipe.PinName(r.Upstream))})
	}
	check := func(field, repo string) {
		if why := unreachableRepository(repo); why != "" {
			// The notice is printed and may be pasted: a token in the
			// URL is masked as everywhere else.
			out = append(out, Problem{Version: r.Version, Notice: true, Message: fmt.Sprintf("%s %s is %s: nobody else can fetch it", field, redact.URL(repo), why),
				Detail: "name the canonical repository in the recipe; a mirror is given with --upstream"})
		}
	}
	check("upstream.repository", r.Upstream.Repository)
	if r.CAPI != nil {
		check("capi.repository", r.CAPI.Repository)
	}
	return out
}

var scpRepository = regexp.MustCompile(`^[^/@:]+@([^:/]+):`)

// unreachableRepository says why repo is only reachable from this machine
// or network ("" when it is not): a loopback, private, link-local or
// unspecified address, localhost, or a local path.
func unreachableRepository(repo string) string {
	if repo == "" {
		return ""
	}
	host := ""
	if m := scpRepository.FindStringSubmatch(repo); m != nil {
		host = m[1]
	} else {
		u, err := url.Parse(repo)
		if err != nil {
			return ""
		}
		switch {
		case u.Scheme == "file" || (u.Scheme == "" && (strings.HasPrefix(repo, "/") || strings.HasPrefix(repo, "."))):
			return "a local path"
		case u.Scheme == "":
			return ""
		}
		host = u.Hostname()
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return "on localhost"
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return ""
	case ip.IsLoopback():
		return "on a loopback address"
	case ip.IsPrivate():
		return "on a private address"
	case ip.IsLinkLocalUnicast():
		return "on a link-local address"
	case ip.IsUnspecified():
		return "on an unspecified address"
	}
	return ""
}
