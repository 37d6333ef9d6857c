package source

import (
	"container/heap"
	"context"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Between lists the commits reachable from to but not from from that
// change any of paths, newest first (all commits between them when paths
// is empty), as `git log from..to -- paths` lists them: commits in
// committer-time order, and git's default history simplification, which
// follows a merge through a parent it took the paths from unchanged and
// does not list the merge.
func (h *History) Between(ctx context.Context, from, to string, paths []string) ([]Commit, error) {
	hidden, err := h.ancestors(ctx, from)
	if err != nil {
		return nil, err
	}
	if !h.has(to) {
		return nil, h.noCommit(to)
	}
	paths = trimmedPaths(paths)
	var out []Commit
	queue := &byCommitTime{}
	queued := map[plumbing.Hash]bool{}
	push := func(hash plumbing.Hash) error {
		if hidden[hash] || queued[hash] {
			return nil
		}
		queued[hash] = true
		c, err := h.commit(hash)
		if err != nil {
			return err
		}
		heap.Push(queue, c)
		return nil
	}
	if err := push(plumbing.NewHash(to)); err != nil {
		return nil, err
	}
	for queue.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := heap.Pop(queue).(*object.Commit)
		show, follow, err := h.touches(c, paths)
		if err != nil {
			return nil, err
		}
		if show {
			out = append(out, Commit{Hash: c.Hash.String(), Subject: subject(c.Message)})
		}
		for _, p := range follow {
			if err := push(p); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// touches says whether c changes any of paths against its parents (every
// commit does when paths is empty), and which parents the walk goes on
// to: all, unless c took the paths unchanged from one parent, which is
// then the only one followed.
func (h *History) touches(c *object.Commit, paths []string) (bool, []plumbing.Hash, error) {
	if len(paths) == 0 {
		return true, c.ParentHashes, nil
	}
	mine, err := h.pathIDs(c, paths)
	if err != nil {
		return false, nil, err
	}
	if len(c.ParentHashes) == 0 {
		for _, id := range mine {
			if id != "" {
				return true, nil, nil
			}
		}
		return false, nil, nil
	}
	for _, ph := range c.ParentHashes {
		p, err := h.commit(ph)
		if err != nil {
			return false, nil, err
		}
		theirs, err := h.pathIDs(p, paths)
		if err != nil {
			return false, nil, err
		}
		if equalIDs(mine, theirs) {
			return false, []plumbing.Hash{ph}, nil
		}
	}
	return true, c.ParentHashes, nil
}

// pathIDs is what each of paths is in c's tree (mode and hash; "" when
// absent): equal ids, unchanged contents.
func (h *History) pathIDs(c *object.Commit, paths []string) ([]string, error) {
	tree, err := object.GetTree(h.store(), c.TreeHash)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(paths))
	for i, p := range paths {
		if p == "" {
			ids[i] = filemode.Dir.String() + c.TreeHash.String()
			continue
		}
		e, err := tree.FindEntry(p)
		if err != nil {
			continue // absent (object.ErrEntryNotFound, ErrDirectoryNotFound)
		}
		ids[i] = e.Mode.String() + e.Hash.String()
	}
	return ids, nil
}

func equalIDs(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// trimmedPaths are paths as tree lookups take them, without the
// slashes a pathspec may carry at either end.
func trimmedPaths(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = strings.Trim(p, "/")
	}
	return out
}

// subject is a commit message's subject as git's %s gives it: the first
// paragraph, its lines joined by spaces.
func subject(message string) string {
	para, _, _ := strings.Cut(strings.TrimLeft(message, "\n"), "\n\n")
	var parts []string
	for _, l := range strings.Split(para, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

// byCommitTime is a heap of commits, the newest (by committer time) on
// top, as git's revision walk orders them.
type byCommitTime []*object.Commit

func (q byCommitTime) Len() int { return len(q) }
func (q byCommitTime) Less(i, j int) bool {
	return q[i].Committer.When.After(q[j].Committer.When)
}
func (q byCommitTime) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *byCommitTime) Push(x any)   { *q = append(*q, x.(*object.Commit)) }
func (q *byCommitTime) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}
