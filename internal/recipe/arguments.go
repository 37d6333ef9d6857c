package recipe

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// patchLimit is how large a listed patch may be; tests set a small one.
var patchLimit = inputfile.PatchLimit

// The values below end up as arguments of git and cargo and as paths the
// build writes under. Refusing anything that could read as an option or
// climb out of its folder here makes lint and apply refuse the recipe
// instead of a build running it.
var (
	// gitRefChars are the characters of the tags, branches, commits and
	// module pseudo-versions recipes pin; git itself allows a few more
	// that no pin needs.
	gitRefChars = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/+-]*$`)
	// crateName is what cargo accepts for a package name (cargo -p).
	crateName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	// libraryName is a Rust library's name as in lib<library>.a: cargo
	// turns a package's dashes into underscores.
	libraryName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
)

const (
	refAllowed  = `must be a git tag, branch or commit (letters, digits and . _ / + -, starting with a letter or digit, no "..", not ending in "/", "." or ".lock")`
	repoAllowed = `must be a git URL or path (not starting with "-", no control characters, no ext:: command)`
)

// checkArguments lists the problems of the values passed to git and cargo
// and of the folders the recipe names.
func (r *Recipe) checkArguments() []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }

	{
		u := r.Upstream
		if u.Repository != "" && !gitRepository(u.Repository) {
			add("upstream.repository %q %s", u.Repository, repoAllowed)
		}
		if u.Ref != "" && !gitRef(u.Ref) {
			add("upstream.ref %q %s", u.Ref, refAllowed)
		}
	}
	if c := r.CAPI; c != nil {
		if c.Repository != "" && !gitRepository(c.Repository) {
			add("capi.repository %q %s", c.Repository, repoAllowed)
		}
		if c.Ref != "" && !gitRef(c.Ref) {
			add("capi.ref %q %s", c.Ref, refAllowed)
		}
		if c.Dir != "" && !localFolder(c.Dir) {
			add(`capi.dir %q must be a relative folder inside the C API checkout, such as lib/bindings/c (no "..", not absolute, not starting with "-")`, c.Dir)
		}
		if c.Crate != "" && !crateName.MatchString(c.Crate) {
			add(`capi.crate %q must be a cargo package name (letters, digits, "-" and "_", starting with a letter or digit), such as libdynamo_llm`, c.Crate)
		}
		if c.Library != "" && !libraryName.MatchString(c.Library) {
			add(`capi.library %q must be a library name as in lib<library>.a (letters, digits and "_"), such as dynamo_llm_capi`, c.Library)
		}
	}
	repo := filepath.Dir(filepath.Dir(r.Dir))
	for i, g := range r.Generated {
		if g.From == "" {
			continue
		}
		if where, ok := insideRepository(g, repo); !ok {
			add("generated[%d].from %q must be a folder of this repository, relative to the recipe folder (such as ../../plugins/x); it resolves to %s, outside %s", i, g.From, where, repo)
		}
	}
	return p
}

func gitRef(s string) bool {
	return gitRefChars.MatchString(s) &&
		!strings.Contains(s, "..") && !strings.Contains(s, "//") && !strings.Contains(s, "/.") &&
		!strings.HasSuffix(s, "/") && !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, ".lock")
}

func gitRepository(s string) bool {
	if strings.HasPrefix(s, "-") || strings.HasPrefix(strings.ToLower(s), "ext::") {
		return false
	}
	return !strings.ContainsFunc(s, unicode.IsControl)
}

func localFolder(s string) bool {
	return filepath.IsLocal(filepath.FromSlash(s)) && !strings.HasPrefix(s, "-") && !strings.ContainsFunc(s, unicode.IsControl)
}

// insideRepository says whether a generated package's folder is in the
// repository, as written and, when it exists, with symlinks resolved.
func insideRepository(g Package, repo string) (string, bool) {
	if filepath.IsAbs(filepath.FromSlash(g.From)) {
		return g.From, false
	}
	if !within(repo, g.FromDir) {
		return g.FromDir, false
	}
	real, err := filepath.EvalSymlinks(g.FromDir)
	if err != nil {
		// A folder that does not exist yet is regen's to report.
		return g.FromDir, true
	}
	realRepo, err := filepath.EvalSymlinks(repo)
	if err != nil {
		return g.FromDir, true
	}
	return real, within(realRepo, real)
}

func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}
