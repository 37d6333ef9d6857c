// Package seriesedit edits a version's patch series the way StGit and
// quilt edit a stack: reword a patch's message, drop, move and squash
// patches. Each edit replays the series on its upstream pin in a temporary
// folder (so an order that does not apply is refused before anything is
// written), rebuilds the commits as the edit asks and exports them into the
// version folder, so the series stays what apply + export produce and
// check passes.
package seriesedit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/epp-build/epp-build/internal/dirswap"
	"github.com/epp-build/epp-build/internal/export"
	"github.com/epp-build/epp-build/internal/gitstore"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/trailer"
)

// UsageError is an edit that names patches or positions the series does
// not have.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Message is a new subject and body for a patch; an empty field keeps
// what the patch has. Body replaces the prose above the trailers: the
// Upstream:, Reason: and other trailers stay.
type Message struct {
	Subject string
	Body    string
}

// group is one patch of the edited series: the old patches it is made of
// (more than one for a squash), in the order they apply, and its message.
type group struct {
	members []string
	msg     Message
}

// Edited says what an edit did: the version's own patches before and
// after, and the generated folders left out with the patches that made
// them.
type Edited struct {
	Version string
	Before  []string
	After   []string
	Renamed map[string]string
	Dropped []recipe.Package
}

// ownPatches are the version's own patch names; a base's are not its to
// edit.
func ownPatches(r *recipe.Recipe) []string {
	var out []string
	for _, sp := range r.Series[r.Inherited():] {
		out = append(out, sp.Name)
	}
	return out
}

// Resolve finds the patch an argument names: its file name, or its
// position among the version's own patches (3 or 0003), or the file name's
// number prefix.
func Resolve(r *recipe.Recipe, arg string) (string, error) {
	own := ownPatches(r)
	for _, n := range own {
		if n == arg {
			return n, nil
		}
	}
	if i, err := strconv.Atoi(arg); err == nil {
		if i >= 1 && i <= len(own) {
			return own[i-1], nil
		}
		return "", &UsageError{fmt.Errorf("%s has %d patches of its own; there is no patch %d", r.Version, len(own), i)}
	}
	var found []string
	for _, n := range own {
		if strings.HasPrefix(n, arg) {
			found = append(found, n)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	for _, sp := range r.Series[:r.Inherited()] {
		if sp.Name == arg {
			return "", &UsageError{fmt.Errorf("%s comes from %s, which %s extends: edit it there", arg, sp.Version, r.Version)}
		}
	}
	if len(found) > 1 {
		return "", &UsageError{fmt.Errorf("%q names %d patches of %s: %s", arg, len(found), r.Version, strings.Join(found, ", "))}
	}
	return "", &UsageError{fmt.Errorf("%s has no patch %q (its patches: %s)", r.Version, arg, strings.Join(own, ", "))}
}

// plan is an edit of the version's own series as groups in their new
// order.
func identity(r *recipe.Recipe) []group {
	var out []group
	for _, n := range ownPatches(r) {
		out = append(out, group{members: []string{n}})
	}
	return out
}

func find(groups []group, name string) int {
	for i, g := range groups {
		for _, m := range g.members {
			if m == name {
				return i
			}
		}
	}
	return -1
}

// Reword gives patch a new subject and/or body.
func Reword(ctx context.Context, r *recipe.Recipe, apply patchset.Applier, patch string, msg Message) (*Edited, error) {
	if strings.TrimSpace(msg.Subject) == "" && strings.TrimSpace(msg.Body) == "" {
		return nil, &UsageError{fmt.Errorf("reword: give --subject, --body or both")}
	}
	if strings.Contains(strings.TrimSpace(msg.Subject), "\n") {
		return nil, &UsageError{fmt.Errorf("reword: the subject is one line")}
	}
	name, err := Resolve(r, patch)
	if err != nil {
		return nil, err
	}
	if err := checkMessage(name, msg); err != nil {
		return nil, err
	}
	groups := identity(r)
	groups[find(groups, name)].msg = msg
	return rewrite(ctx, r, apply, groups)
}

// Drop removes patches from the series.
func Drop(ctx context.Context, r *recipe.Recipe, apply patchset.Applier, patches []string) (*Edited, error) {
	if len(patches) == 0 {
		return nil, &UsageError{fmt.Errorf("drop: name the patches to drop")}
	}
	groups := identity(r)
	for _, p := range patches {
		name, err := Resolve(r, p)
		if err != nil {
			return nil, err
		}
		i := find(groups, name)
		if i < 0 {
			return nil, &UsageError{fmt.Errorf("drop: %s is named twice", name)}
		}
		groups = append(groups[:i], groups[i+1:]...)
	}
	return rewrite(ctx, r, apply, groups)
}

// Move puts patch at position to (1-based, among the version's own
// patches).
func Move(ctx context.Context, r *recipe.Recipe, apply patchset.Applier, patch string, to int) (*Edited, error) {
	name, err := Resolve(r, patch)
	if err != nil {
		return nil, err
	}
	groups := identity(r)
	if to < 1 || to > len(groups) {
		return nil, &UsageError{fmt.Errorf("move: --to %d is not a position of %s's %d patches", to, r.Version, len(groups))}
	}
	i := find(groups, name)
	g := groups[i]
	groups = append(groups[:i], groups[i+1:]...)
	groups = append(groups[:to-1], append([]group{g}, groups[to-1:]...)...)
	return rewrite(ctx, r, apply, groups)
}

// Squash folds patches into target: one patch at target's place, with
// target's author, date and message (or msg), the trailers of all of them
// and the changes of all of them, applied in series order.
func Squash(ctx context.Context, r *recipe.Recipe, apply patchset.Applier, target string, patches []string, msg Message) (*Edited, error) {
	if len(patches) == 0 {
		return nil, &UsageError{fmt.Errorf("squash: name the patches to fold into %s", target)}
	}
	into, err := Resolve(r, target)
	if err != nil {
		return nil, err
	}
	if err := checkMessage(into, msg); err != nil {
		return nil, err
	}
	groups := identity(r)
	t := find(groups, into)
	folded := map[string]bool{into: true}
	for _, p := range patches {
		name, err := Resolve(r, p)
		if err != nil {
			return nil, err
		}
		if folded[name] {
			return nil, &UsageError{fmt.Errorf("squash: %s is named twice", name)}
		}
		folded[name] = true
	}
	// The members keep their relative order in the series.
	var members []string
	var rest []group
	for i, g := range groups {
		if folded[g.members[0]] {
			members = append(members, g.members[0])
			if i != t {
				continue
			}
		}
		rest = append(rest, g)
	}
	for i := range rest {
		if rest[i].members[0] == into {
			rest[i].members = members
			rest[i].msg = msg
		}
	}
	return rewrite(ctx, r, apply, rest)
}

// rewrite replays r's series in the groups' order in a temporary folder
// and writes the rebuilt series into r's folder.
func rewrite(ctx context.Context, r *recipe.Recipe, apply patchset.Applier, groups []group) (*Edited, error) {
	tmp, err := os.MkdirTemp("", "epp-build-series-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	// The replay recipe lists the patches in their new order; the files
	// stay where they are.
	replay := *r
	replay.Series = append([]recipe.SeriesPatch(nil), r.Series[:r.Inherited()]...)
	byName := map[string]recipe.SeriesPatch{}
	for _, sp := range r.Series {
		byName[sp.Name] = sp
	}
	for _, g := range groups {
		for _, m := range g.members {
			replay.Series = append(replay.Series, byName[m])
		}
	}
	work := filepath.Join(tmp, "tree")
	if err := apply(ctx, &replay, work); err != nil {
		return nil, fmt.Errorf("the edited series does not apply: %w", err)
	}
	built, err := rebuild(work, r, groups)
	if err != nil {
		return nil, err
	}
	var patches []export.Patch
	for _, sp := range r.Series[:r.Inherited()] {
		data, err := inputfile.ReadFile(sp.Path, filepath.Dir(sp.Path), inputfile.PatchLimit())
		if err != nil {
			return nil, err
		}
		patches = append(patches, export.Patch{Name: sp.Name, Data: data})
	}
	res := &Edited{Version: r.Version, Before: ownPatches(r), Renamed: map[string]string{}}
	for i, b := range built {
		name := newName(res.Before, i, b)
		for _, m := range b.group.members {
			res.Renamed[m] = name
		}
		res.After = append(res.After, name)
		patches = append(patches, export.Patch{Name: name, Data: b.data, Commit: b.commit})
	}
	rename := map[string]string{}
	for _, sp := range r.Series[:r.Inherited()] {
		rename[sp.Name] = sp.Name
	}
	for k, v := range res.Renamed {
		rename[k] = v
	}
	// The series is written to a copy of the version folder that replaces
	// it whole: a kill while its patches and recipe are written leaves the
	// old series, never some of the new files with the old recipe.
	err = dirswap.Replace(r.Dir, func(staging string) error {
		into := *r
		into.Dir = staging
		if err := export.WriteRecipe(&into, patches); err != nil {
			return err
		}
		res.Dropped, err = recipe.RenameGenerated(staging, rename)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

type builtPatch struct {
	group   group
	subject string
	renamed bool // the subject changed
	data    []byte
	commit  string
}

// rebuild makes one commit per group on top of the base's patches: the
// tree of the group's last member, the first member's author and date, and
// the message the group asks for; then formats each.
func rebuild(work string, r *recipe.Recipe, groups []group) ([]builtPatch, error) {
	rec, err := patchset.ReadRecord(work)
	if err != nil || rec == nil {
		return nil, fmt.Errorf("read what the replay applied in %s: %v", work, err)
	}
	repo, err := git.PlainOpen(work)
	if err != nil {
		return nil, err
	}
	commitOf := map[string]*object.Commit{}
	for _, a := range rec.Patches {
		c, err := repo.CommitObject(plumbing.NewHash(a.Commit))
		if err != nil {
			return nil, err
		}
		commitOf[a.File] = c
	}
	parent := plumbing.NewHash(rec.Base)
	if n := r.Inherited(); n > 0 {
		parent = commitOf[r.Series[n-1].Name].Hash
	}
	var out []builtPatch
	for _, g := range groups {
		first, last := commitOf[g.members[0]], commitOf[g.members[len(g.members)-1]]
		if first == nil || last == nil {
			return nil, fmt.Errorf("the replay has no commit for %s", strings.Join(g.members, ", "))
		}
		var trailers []string
		for _, m := range g.members[1:] {
			trailers = append(trailers, trailerLines(commitOf[m].Message)...)
		}
		msg := message(first.Message, g.msg, trailers)
		c := &object.Commit{
			Author: first.Author, Committer: first.Committer, Message: msg,
			TreeHash: last.TreeHash, ParentHashes: []plumbing.Hash{parent},
		}
		h, err := gitstore.WriteCommit(repo.Storer, c)
		if err != nil {
			return nil, err
		}
		if c, err = repo.CommitObject(h); err != nil {
			return nil, err
		}
		data, err := export.FormatCommit(repo.Storer, c)
		if err != nil {
			return nil, err
		}
		subject, _, _ := strings.Cut(msg, "\n")
		oldSubject, _, _ := strings.Cut(first.Message, "\n")
		out = append(out, builtPatch{group: g, subject: subject, renamed: strings.TrimSpace(oldSubject) != subject, data: data, commit: h.String()})
		parent = h
	}
	return out, nil
}

// message is old with the subject and body replaced as m asks and the
// trailers extra added (each line once).
func message(old string, m Message, extra []string) string {
	old = strings.TrimRight(old, "\n")
	subject, body, _ := strings.Cut(old, "\n")
	body = strings.Trim(body, "\n")
	prose := trailer.Prose(body)
	lines := trailer.Lines(body)
	if s := strings.TrimSpace(m.Subject); s != "" {
		subject = s
	}
	if b := strings.TrimSpace(m.Body); b != "" {
		prose = b
	}
	for _, l := range extra {
		if !contains(lines, l) {
			lines = append(lines, l)
		}
	}
	var parts []string
	for _, p := range []string{prose, strings.Join(lines, "\n")} {
		if strings.TrimSpace(p) != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return subject + "\n"
	}
	return subject + "\n\n" + strings.Join(parts, "\n\n") + "\n"
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// trailerLines are the entries of a commit message's trailer paragraph,
// each trailer with its continuation lines.
func trailerLines(msg string) []string {
	_, body, _ := strings.Cut(strings.TrimRight(msg, "\n"), "\n")
	return trailer.Lines(body)
}

var numbered = regexp.MustCompile(`^[0-9]{4}-`)

// newName names the i-th patch of the edited series: the old name when
// the patch is the same one at the same place under the same subject;
// else format-patch's name for its place and subject (the old name's text
// kept, renumbered, when the subject did not change).
func newName(before []string, i int, b builtPatch) string {
	old := b.group.members[0]
	if i < len(before) && before[i] == old && len(b.group.members) == 1 && !b.renamed {
		return old
	}
	if !b.renamed && numbered.MatchString(old) {
		return fmt.Sprintf("%04d-%s", i+1, old[5:])
	}
	return fmt.Sprintf("%04d-%s.patch", i+1, export.Slug(b.subject))
}
