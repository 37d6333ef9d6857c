package vulns

import (
	"strings"

	"github.com/epp-build/epp-build/internal/recipe"
)

// lineEnv is the environment a line's source scan runs the go command
// with: for a recipe that names a toolchain, GOTOOLCHAIN set to it, so the
// standard library scanned (and named in every standard-library finding)
// is the one of the Go the line is built with, fetched as the go command
// fetches any toolchain. What env said of GOTOOLCHAIN or GOVERSION gives
// way: the recipe decides which Go builds the line.
func lineEnv(r *recipe.Recipe, env []string) []string {
	if r == nil || r.Toolchain == "" {
		return env
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOTOOLCHAIN=") || strings.HasPrefix(kv, "GOVERSION=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GOTOOLCHAIN="+r.Toolchain)
}
