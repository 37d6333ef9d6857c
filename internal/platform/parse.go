package platform

import (
	"errors"
	"strings"
)

// ErrNone means --platform named no platform at all.
var ErrNone = errors.New("no platform given: pass linux/amd64 and/or linux/arm64")

// Parse reads --platform values (each may be a comma list): normalised,
// deduplicated, in the order given. An unsupported platform is an
// *UnsupportedError.
func Parse(specs []string) ([]Platform, error) {
	var out []Platform
	seen := map[string]bool{}
	for _, spec := range specs {
		for _, s := range strings.Split(spec, ",") {
			if strings.TrimSpace(s) == "" {
				continue
			}
			p, err := Lookup(s)
			if err != nil {
				return nil, err
			}
			if !seen[p.String()] {
				seen[p.String()] = true
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		return nil, ErrNone
	}
	return out, nil
}

// Strings are the platforms' OCI names, for BuildKit's attributes and the
// report, which speak strings.
func Strings(ps []Platform) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}
