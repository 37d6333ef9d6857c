package source

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/epp-build/epp-build/internal/gitformat"
)

// A module version names a commit, and a pseudo-version also claims when
// the commit was made and which release it follows. The module proxy's
// answer is only as good as the proxy (and a mirror's commit is on no
// proxy at all), so the version is worked out here from the commit
// itself, by the go command's rules (cmd/go/internal/modfetch, convert):
// the highest canonical semver tag on the commit; else a pseudo-version
// from the commit's committer time (UTC), its 12-character hash and, as
// base, the highest semver tag in its history. Tags of another major
// version than the module path's are not bases. Two rules of the go
// command are left out, as no GAIE line needs them: retracted versions
// (read from the newest go.mod) are not skipped, and +incompatible
// versions (a repository without go.mod) are not made.

// CommitVersion is the module version of a commit, with the facts it is
// made of.
type CommitVersion struct {
	Module string
	Commit string
	// Time is the committer time, in UTC, to the second.
	Time time.Time
	// Version is the commit's tag version or its pseudo-version.
	Version string
	// Base is the highest version tagged in the commit's history (a
	// pseudo-version's base; "" when there is none).
	Base string
	// Tags are the canonical versions tagged on the commit itself: each
	// is a version of it, and the highest is Version.
	Tags []string
}

// Short is the commit's 12-character revision, as a pseudo-version
// names it.
func (v CommitVersion) Short() string { return gitformat.Short(v.Commit) }

// tagsMark is the file in a history's folder that says its tags were
// fetched (and when), so an offline reader knows the ancestry is whole.
const tagsMark = "epp-build-tags"

// FetchTags brings repository's tags and their history (commits and
// trees) into h, dropping tags the repository no longer has: the tag
// ancestry a pseudo-version's base is read from.
func (h *History) FetchTags(ctx context.Context, repository string) error {
	args := fetchArgs(repository, "+refs/tags/*:refs/tags/*")
	// --prune drops tags deleted upstream, which are no base any more.
	for i, a := range args {
		if a == "fetch" {
			args = slices.Insert(args, i+1, "--prune")
			break
		}
	}
	if _, err := h.git(ctx, args...); err != nil {
		return fmt.Errorf("fetch the tags of %s: %w", h.shown, err)
	}
	return os.WriteFile(filepath.Join(h.dir, tagsMark), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644)
}

// CommitModuleVersion is the module version of commit for module mod in
// repository. With fetch, the commit and the repository's tags are
// fetched into the history cache under cacheDir ("" = the user cache
// folder) first; without, only what the cache holds is read, and ok is
// false when it lacks the commit or never fetched the tags.
func CommitModuleVersion(ctx context.Context, cacheDir, repository, mod, commit string, fetch bool) (v CommitVersion, ok bool, err error) {
	if !fullHash.MatchString(commit) {
		return v, false, fmt.Errorf("module version of %q: not a full commit hash", commit)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return v, false, fmt.Errorf("working out a module version needs the git CLI: %w", err)
	}
	if cacheDir == "" {
		if cacheDir, err = CacheDir(); err != nil {
			return v, false, err
		}
	}
	var h *History
	if fetch {
		if h, err = OpenHistory(ctx, cacheDir, repository); err != nil {
			return v, false, err
		}
		if err := h.FetchTags(ctx, repository); err != nil {
			return v, false, err
		}
		// A commit no tag reaches (on a branch) is fetched by its hash.
		if h, err = OpenHistory(ctx, cacheDir, repository, commit); err != nil {
			return v, false, err
		}
	} else {
		h = historyAt(cacheDir, repository)
		if _, err := os.Stat(filepath.Join(h.dir, tagsMark)); err != nil || !h.has(ctx, commit) {
			return v, false, nil
		}
	}
	v, err = h.ModuleVersion(ctx, mod, commit)
	return v, err == nil, err
}

// ModuleVersion is the module version of commit for module mod, from the
// tags the history holds.
func (h *History) ModuleVersion(ctx context.Context, mod, commit string) (CommitVersion, error) {
	out, err := h.git(ctx, "show", "-s", "--format=%H %ct", commit+"^{commit}")
	if err != nil {
		return CommitVersion{}, fmt.Errorf("read commit %s in the history of %s: %w", gitformat.Short(commit), h.shown, err)
	}
	full, secs, _ := strings.Cut(strings.TrimSpace(out), " ")
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || !fullHash.MatchString(full) {
		return CommitVersion{}, fmt.Errorf("read commit %s in the history of %s: unexpected %q", gitformat.Short(commit), h.shown, out)
	}
	tags := func(filter string) ([]string, error) {
		out, err := h.git(ctx, "for-each-ref", "--format=%(refname)", filter+"="+full, "refs/tags/")
		if err != nil {
			return nil, fmt.Errorf("list the tags of %s in the history of %s: %w", gitformat.Short(full), h.shown, err)
		}
		var names []string
		for _, line := range strings.Split(out, "\n") {
			if name, ok := strings.CutPrefix(strings.TrimSpace(line), "refs/tags/"); ok {
				names = append(names, name)
			}
		}
		return names, nil
	}
	on, err := tags("--points-at")
	if err != nil {
		return CommitVersion{}, err
	}
	merged, err := tags("--merged")
	if err != nil {
		return CommitVersion{}, err
	}
	return commitVersion(mod, full, time.Unix(n, 0), on, merged)
}

// commitVersion applies the go command's rules to a commit made at when,
// with the tags on it and the tags in its history (itself included).
func commitVersion(mod, commit string, when time.Time, on, merged []string) (CommitVersion, error) {
	_, pathMajor, ok := module.SplitPathVersion(mod)
	if !ok {
		return CommitVersion{}, fmt.Errorf("module path %q is not valid", mod)
	}
	v := CommitVersion{Module: mod, Commit: commit, Time: when.UTC().Truncate(time.Second)}
	for _, tag := range on {
		if tv, canonical := tagVersion(tag); canonical && module.MatchPathMajor(tv, pathMajor) && !slices.Contains(v.Tags, tv) {
			v.Tags = append(v.Tags, tv)
		}
	}
	semver.Sort(v.Tags)
	for _, tag := range merged {
		if tv, _ := tagVersion(tag); tv != "" && module.MatchPathMajor(tv, pathMajor) && semver.Compare(tv, v.Base) > 0 {
			v.Base = tv
		}
	}
	if len(v.Tags) > 0 {
		v.Version = v.Tags[len(v.Tags)-1]
		return v, nil
	}
	major := "v0"
	if pathMajor != "" {
		major = module.PathMajorPrefix(pathMajor)
	}
	v.Version = module.PseudoVersion(major, v.Base, v.Time, v.Short())
	return v, nil
}

// tagVersion is the version a tag stands for (the go command's
// tagToVersion for a module at the repository's root): "" for a tag
// that is no semver version, or looks like a pseudo-version; canonical
// when the tag is the version exactly (no build metadata).
func tagVersion(tag string) (v string, canonical bool) {
	if module.IsPseudoVersion(tag) {
		return "", false
	}
	v = semver.Canonical(tag)
	if v == "" || !strings.HasPrefix(tag, v) {
		return "", false // not semver, or incomplete (v1, v1.2)
	}
	return v, v == tag
}

// ModuleVersionError is a module version that is not its commit's: a
// pseudo-version with another time, revision or base, or a version no
// tag of the commit names. A verification failure, exit 5.
type ModuleVersionError struct {
	Module, Given, Commit string
	// Want is the version the go command gives the commit.
	Want string
	// Why lists each part of Given that is wrong.
	Why []string
	// Fix says what to do, in the caller's words ("" = use Want).
	Fix string
}

func (e *ModuleVersionError) Error() string {
	fix := e.Fix
	if fix == "" {
		fix = "use " + e.Want
	}
	return fmt.Sprintf("module version %s@%s is not commit %s's: %s; the go command names that commit %s (%s)",
		e.Module, e.Given, gitformat.Short(e.Commit), strings.Join(e.Why, "; "), e.Want, fix)
}

// CLIExitCode is 5: verification failed: a module version that is not
// its commit's.
func (e *ModuleVersionError) CLIExitCode() int { return 5 }

// CheckModuleVersion says whether given is a module version of the
// commit v describes: v's own version, another canonical tag on the
// commit, or nothing else. A pseudo-version must carry the commit's
// time, revision and base exactly (the go command accepts a lower base
// too, but would never compute one: a lower base is a hand-made version).
func CheckModuleVersion(given string, v CommitVersion) error {
	if given == v.Version || slices.Contains(v.Tags, given) {
		return nil
	}
	var why []string
	switch {
	case module.IsPseudoVersion(given):
		if rev, _ := module.PseudoVersionRev(given); rev != v.Short() {
			why = append(why, fmt.Sprintf("its revision %s is not the commit's %s", rev, v.Short()))
		}
		if t, _ := module.PseudoVersionTime(given); !t.Equal(v.Time) {
			why = append(why, fmt.Sprintf("its time %s is not the commit's committer time %s (UTC)",
				t.UTC().Format(module.PseudoVersionTimestampFormat), v.Time.Format(module.PseudoVersionTimestampFormat)))
		}
		base, _ := module.PseudoVersionBase(given)
		switch {
		case len(v.Tags) > 0:
			why = append(why, fmt.Sprintf("the commit is tagged %s, which is its version", v.Version))
		case base != v.Base && v.Base == "":
			why = append(why, fmt.Sprintf("its base %s is no tag in the commit's history, which has none", base))
		case base != v.Base:
			why = append(why, fmt.Sprintf("its base is %s, but the highest tag in the commit's history is %s", orNone(base), v.Base))
		}
		if len(why) == 0 {
			why = append(why, "it is not written as the go command writes it")
		}
	case semver.IsValid(given):
		why = append(why, fmt.Sprintf("no tag %s names the commit", given))
	default:
		why = append(why, "it is not a module version")
	}
	return &ModuleVersionError{Module: v.Module, Given: given, Commit: v.Commit, Want: v.Version, Why: why}
}

func orNone(base string) string {
	if base == "" {
		return "none (v0.0.0)"
	}
	return base
}
