package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
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
	err := h.locked(ctx, func() error {
		adv, err := h.fetchAdvertised(ctx, repository, "tags", func(adv *packp.AdvRefs) ([]plumbing.Hash, error) {
			var wants []plumbing.Hash
			for name, hash := range adv.References {
				if strings.HasPrefix(name, "refs/tags/") && !slices.Contains(wants, hash) {
					wants = append(wants, hash)
				}
			}
			return wants, nil
		})
		if err != nil {
			return err
		}
		h.open()
		return h.setTags(adv)
	})
	if err != nil {
		return fmt.Errorf("fetch the tags of %s: %w", h.shown, err)
	}
	return os.WriteFile(filepath.Join(h.dir, tagsMark), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644)
}

// setTags makes h's tags the advertised ones: tags deleted upstream are
// no base any more.
func (h *History) setTags(adv *packp.AdvRefs) error {
	s := h.store()
	for name, hash := range adv.References {
		if strings.HasPrefix(name, "refs/tags/") {
			if err := s.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(name), hash)); err != nil {
				return err
			}
		}
	}
	local, err := h.tags()
	if err != nil {
		return err
	}
	for name := range local {
		if _, ok := adv.References[name]; !ok {
			if err := s.RemoveReference(plumbing.ReferenceName(name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// tags are h's tags by full ref name, each peeled to its commit (a tag
// of anything else is left out).
func (h *History) tags() (map[string]plumbing.Hash, error) {
	refs, err := h.store().IterReferences()
	if err != nil {
		return nil, err
	}
	defer refs.Close()
	out := map[string]plumbing.Hash{}
	err = refs.ForEach(func(r *plumbing.Reference) error {
		if r.Type() != plumbing.HashReference || !strings.HasPrefix(r.Name().String(), "refs/tags/") {
			return nil
		}
		if c, err := peel(h.store(), r.Hash()); err == nil {
			out[r.Name().String()] = c
		}
		return nil
	})
	return out, err
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
	var h *History
	if fetch {
		if h, err = historyAt(cacheDir, repository); err != nil {
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
		if h, err = historyAt(cacheDir, repository); err != nil {
			return v, false, err
		}
		if _, err := os.Stat(filepath.Join(h.dir, tagsMark)); err != nil || !h.has(commit) {
			return v, false, nil
		}
	}
	defer h.Close()
	v, err = h.ModuleVersion(ctx, mod, commit)
	return v, err == nil, err
}

// ModuleVersion is the module version of commit for module mod, from the
// tags the history holds.
func (h *History) ModuleVersion(ctx context.Context, mod, commit string) (CommitVersion, error) {
	if !h.has(commit) {
		return CommitVersion{}, h.noCommit(commit)
	}
	c, err := h.commit(plumbing.NewHash(commit))
	if err != nil {
		return CommitVersion{}, err
	}
	in, err := h.ancestors(ctx, commit)
	if err != nil {
		return CommitVersion{}, err
	}
	tags, err := h.tags()
	if err != nil {
		return CommitVersion{}, fmt.Errorf("list the tags in the history of %s: %w", h.shown, err)
	}
	var on, merged []string
	for name, target := range tags {
		name = strings.TrimPrefix(name, "refs/tags/")
		if target == c.Hash {
			on = append(on, name)
		}
		if in[target] {
			merged = append(merged, name)
		}
	}
	slices.Sort(on)
	slices.Sort(merged)
	return commitVersion(mod, c.Hash.String(), c.Committer.When, on, merged)
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
