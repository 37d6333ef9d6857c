// Package review reads a release's series for people: the list of
// versions, the per-patch log, the comparison of two versions' series, and
// the lint rules, with their text and Markdown renderings.
package review

import (
	"regexp"
	"strings"
)

var trailerLine = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9-]*): (.+)$`)

// Trailers returns the "Key: value" lines of a message body's last
// paragraph, as git interpret-trailers reads them.
func Trailers(body string) map[string][]string {
	paras := strings.Split(strings.TrimSpace(body), "\n\n")
	last := paras[len(paras)-1]
	out := map[string][]string{}
	for _, l := range strings.Split(last, "\n") {
		m := trailerLine.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			return map[string][]string{}
		}
		out[m[1]] = append(out[m[1]], m[2])
	}
	return out
}
