package source

import (
	"fmt"
	"strings"
)

// Kind names where the upstream tree comes from.
type Kind string

const (
	// Auto tries Git and falls back to GoProxy when git cannot be reached.
	Auto Kind = "auto"
	// Git fetches the pinned ref shallowly from the repository.
	Git Kind = "git"
	// GoProxy downloads the pinned module version from GOPROXY.
	GoProxy Kind = "goproxy"
	// Path reads a local git repository (work tree or bare).
	Path Kind = "path"
)

// Kinds lists the accepted kinds, for help texts.
var Kinds = []Kind{Auto, Git, GoProxy, Path}

// ParseKind reads a kind from a flag value; "" means Auto.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(strings.ToLower(strings.TrimSpace(s))); k {
	case "":
		return Auto, nil
	case Auto, Git, GoProxy, Path:
		return k, nil
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("unknown source kind %q (use one of %s)", s, strings.Join(names, ", "))
}
