package patchset

import (
	"context"
	"fmt"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/storage/memory"
)

// AlreadyApplied reports whether the tree in dir already holds p's
// change: p does not apply, but its reverse applies cleanly. A backport
// whose fix landed upstream is detected this way and can be dropped.
func AlreadyApplied(ctx context.Context, dir string, p *Patch) (bool, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return false, fmt.Errorf("open %s: %w", dir, err)
	}
	head, err := repo.Head()
	if err != nil {
		return false, err
	}
	t, err := loadTree(dir, repo.Storer, memory.NewStorage(), head.Hash())
	if err != nil {
		return false, err
	}
	defer t.spills.Remove()
	if _, err := applyPatch(t, reverse(p)); err != nil {
		return false, nil
	}
	return true, ctx.Err()
}

// reverse returns the patch that undoes p.
func reverse(p *Patch) *Patch {
	r := *p
	r.Files = make([]*gitdiff.File, len(p.Files))
	for i, f := range p.Files {
		g := *f
		g.OldName, g.NewName = f.NewName, f.OldName
		g.OldMode, g.NewMode = f.NewMode, f.OldMode
		g.IsNew, g.IsDelete = f.IsDelete, f.IsNew
		g.OldOIDPrefix, g.NewOIDPrefix = f.NewOIDPrefix, f.OldOIDPrefix
		g.BinaryFragment, g.ReverseBinaryFragment = f.ReverseBinaryFragment, f.BinaryFragment
		g.TextFragments = make([]*gitdiff.TextFragment, len(f.TextFragments))
		for j, frag := range f.TextFragments {
			h := *frag
			h.OldPosition, h.NewPosition = frag.NewPosition, frag.OldPosition
			h.OldLines, h.NewLines = frag.NewLines, frag.OldLines
			h.LinesAdded, h.LinesDeleted = frag.LinesDeleted, frag.LinesAdded
			h.Lines = make([]gitdiff.Line, len(frag.Lines))
			for k, l := range frag.Lines {
				switch l.Op {
				case gitdiff.OpAdd:
					l.Op = gitdiff.OpDelete
				case gitdiff.OpDelete:
					l.Op = gitdiff.OpAdd
				}
				h.Lines[k] = l
			}
			g.TextFragments[j] = &h
		}
		r.Files[i] = &g
	}
	return &r
}
