package export

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/gitstore"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Patch is one exported patch file.
type Patch struct {
	Name   string
	Data   []byte
	Commit string
}

// Series formats the commits between the upstream base ref and HEAD of the
// work tree dir, oldest first. Commits that came from a patch file keep
// that file's name; new commits are named after their subject.
func Series(dir string) ([]Patch, error) {
	// Every commit's tree is diffed against its parent's: with the packs
	// kept open, not opened again for each object read.
	repo, closeRepo, err := gitstore.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", dir, err)
	}
	defer closeRepo()
	base, err := repo.Reference(plumbing.ReferenceName(patchset.UpstreamRef), true)
	if err != nil {
		return nil, fmt.Errorf("export %s: no %s ref: is this a tree made by `epp-build apply`? (%w)", dir, patchset.UpstreamRef, err)
	}
	head, err := repo.Head()
	if err != nil {
		return nil, fmt.Errorf("export %s: HEAD: %w", dir, err)
	}
	commits, err := linearHistory(repo, head.Hash(), base.Hash())
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", dir, err)
	}
	rec, err := patchset.ReadRecord(dir)
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", dir, err)
	}
	names := newNamer(rec)
	out := make([]Patch, 0, len(commits))
	for i, c := range commits {
		data, err := FormatCommit(repo.Storer, c)
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", dir, err)
		}
		out = append(out, Patch{Name: names.name(i, c), Data: data, Commit: c.Hash.String()})
	}
	return out, nil
}

// linearHistory walks first parents from head back to base.
func linearHistory(repo *git.Repository, head, base plumbing.Hash) ([]*object.Commit, error) {
	var commits []*object.Commit
	for h := head; h != base; {
		c, err := repo.CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w (is the upstream base %s an ancestor of HEAD?)", h, err, base)
		}
		if c.NumParents() != 1 {
			return nil, fmt.Errorf("commit %s has %d parents before reaching the upstream base %s; the series must be a straight line (rebase instead of merging)", gitformat.Short(h.String()), c.NumParents(), gitformat.Short(base.String()))
		}
		commits = append(commits, c)
		h = c.ParentHashes[0]
	}
	for i, j := 0, len(commits)-1; i < j; i, j = i+1, j-1 {
		commits[i], commits[j] = commits[j], commits[i]
	}
	return commits, nil
}

// namer keeps patch file names stable: a commit that apply made from a
// file, or one whose subject matches such a commit (an amended one), keeps
// that file's name.
type namer struct {
	byCommit  map[string]string
	bySubject map[string]string
	used      map[string]bool
}

func newNamer(rec *patchset.Record) *namer {
	n := &namer{byCommit: map[string]string{}, bySubject: map[string]string{}, used: map[string]bool{}}
	if rec == nil {
		return n
	}
	for _, a := range rec.Patches {
		if a.Part > 0 {
			continue // a file of several patches is exported one per file
		}
		n.byCommit[a.Commit] = a.File
		n.bySubject[a.Subject] = a.File
	}
	return n
}

func (n *namer) name(i int, c *object.Commit) string {
	subject, _ := splitMessage(c.Message)
	for _, cand := range []string{n.byCommit[c.Hash.String()], n.bySubject[subject]} {
		if cand != "" && !n.used[cand] {
			n.used[cand] = true
			return cand
		}
	}
	name := fmt.Sprintf("%04d-%s.patch", i+1, slug(subject))
	n.used[name] = true
	return name
}

var nonSlug = regexp.MustCompile(`[^A-Za-z0-9._]+`)

// slug is git format-patch's file name for a subject.
func slug(subject string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(subject, "-"), "-.")
	if len(s) > 52 {
		s = strings.TrimRight(s[:52], "-.")
	}
	if s == "" {
		s = "patch"
	}
	return s
}
