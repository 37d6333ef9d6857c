package bump

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/epp-build/epp-build/internal/recipe"
)

// UsageError is an argument bump refuses: a module, a version, an id or
// a toolchain that cannot be what the user meant.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// goModules are the names Go itself goes by in the database and in the
// go command: raised with --toolchain, never with go get.
var goModules = []string{"go", "stdlib", "toolchain"}

// ParseModules reads MODULE@VERSION arguments. Versions must be canonical
// semver: a query such as latest or a branch would make the patch depend
// on the day it was made.
func ParseModules(args []string) ([]module.Version, error) {
	var out []module.Version
	seen := map[string]bool{}
	for _, a := range args {
		path, v, ok := strings.Cut(a, "@")
		if !ok || path == "" || v == "" {
			return nil, usage("%q: give MODULE@VERSION, for example golang.org/x/net@v0.45.0", a)
		}
		if slices.Contains(goModules, path) {
			return nil, usage("%q: Go itself is raised with --toolchain goX.Y.Z, not as a module", a)
		}
		if err := module.CheckPath(path); err != nil {
			return nil, usage("%q: %v", a, err)
		}
		if !semver.IsValid(v) || semver.Canonical(v) != v {
			return nil, usage("%q: the version must be a release such as v1.2.3 (or a pseudo-version), not %q", a, v)
		}
		if err := module.Check(path, v); err != nil {
			return nil, usage("%q: %v", a, err)
		}
		if seen[path] {
			return nil, usage("%s is named twice", path)
		}
		seen[path] = true
		out = append(out, module.Version{Path: path, Version: v})
	}
	return out, nil
}

// findingID is the shape of the ids the Go vulnerability database issues.
var findingID = regexp.MustCompile(`^GO-[0-9]{4}-[0-9]{4,}$`)

// CheckFixes refuses a --fixes value that is not a Go database id, the
// one kind of id the scan reports and a reader can look up.
func CheckFixes(ids []string) error {
	for _, id := range ids {
		if !findingID.MatchString(id) {
			return usage("--fixes %q: give a Go vulnerability database id, GO-YYYY-NNNN (vulns lists them)", id)
		}
	}
	return nil
}

// CheckRequest refuses, before any work, a request that names nothing to
// do or that contradicts itself.
func CheckRequest(req *Request) error {
	if len(req.Modules) == 0 && req.Toolchain == "" && !req.FixCalled {
		return usage("nothing to bump: give MODULE@VERSION, --toolchain goX.Y.Z or --fix-called")
	}
	if err := CheckFixes(req.Fixes); err != nil {
		return err
	}
	if req.Toolchain != "" {
		if err := recipe.CheckToolchain(req.Toolchain); err != nil {
			return &UsageError{fmt.Errorf("--toolchain: %w", err)}
		}
	}
	if len(req.Modules) == 0 && !req.FixCalled && len(req.Fixes) > 0 {
		return usage("--fixes goes into the module bump's patch: with --toolchain alone only the recipe changes and no patch carries it")
	}
	return nil
}
