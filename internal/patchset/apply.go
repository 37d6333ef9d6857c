package patchset

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// UpstreamRef marks the upstream base commit; export takes the commits
// after it as the series.
const UpstreamRef = "refs/epp-build/upstream"

// Committer is who applied the series. Authors and dates come from the
// patches; a fixed committer with the author's date makes commit ids
// depend only on the inputs.
var Committer = "epp-build"

const committerEmail = "epp-build@invalid"

// Applied is what one patch became.
type Applied struct {
	File    string   `json:"file"`
	Part    int      `json:"part,omitempty"`
	SHA256  string   `json:"sha256"`
	Subject string   `json:"subject"`
	Commit  string   `json:"commit"`
	Offsets []Offset `json:"offsets,omitempty"`
	// Files maps each path the patch touched to its blob after the patch
	// ("" when the patch deleted it).
	Files map[string]string `json:"files"`
}

// Result is the outcome of applying a series.
type Result struct {
	Base    string    `json:"base"`
	Head    string    `json:"head"`
	Patches []Applied `json:"patches"`
}

// Options tune ApplyToRepo.
type Options struct {
	// Branch is checked out at the last commit (for example
	// "epp-build/v0.7.0").
	Branch string
	// Progress is called before each patch.
	Progress func(done, total int, p *Patch)
}

// Check refuses hostile paths in every patch before anything is touched.
func Check(patches []*Patch) error {
	for _, p := range patches {
		if err := checkPaths(p); err != nil {
			return err
		}
	}
	return nil
}

// ApplyToRepo applies patches to the git work tree dir, whose HEAD is the
// upstream base: one commit per patch. Every patch is applied in memory
// first; the files on disk change only after the whole series applied.
func ApplyToRepo(ctx context.Context, dir string, patches []*Patch, opt Options) (*Result, error) {
	if err := Check(patches); err != nil {
		return nil, err
	}
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	head, err := repo.Head()
	if err != nil {
		return nil, fmt.Errorf("read HEAD of %s: %w", dir, err)
	}
	t, err := loadTree(dir, repo.Storer, head.Hash())
	if err != nil {
		return nil, err
	}
	res := &Result{Base: head.Hash().String()}
	parent := head.Hash()
	for i, p := range patches {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if opt.Progress != nil {
			opt.Progress(i, len(patches), p)
		}
		t.touched = map[string]bool{}
		offsets, err := applyPatch(t, p)
		if err != nil {
			return nil, err
		}
		commit, err := commitPatch(t, p, parent)
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", p.Name(), err)
		}
		res.Patches = append(res.Patches, Applied{
			File: p.File, Part: partNumber(p), SHA256: p.SHA256, Subject: p.Header.Title,
			Commit: commit.String(), Offsets: offsets, Files: touchedBlobs(t),
		})
		parent = commit
	}
	res.Head = parent.String()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := writeOut(dir, t, res); err != nil {
		return nil, err
	}
	if err := setRefs(repo, head.Hash(), parent, opt.Branch); err != nil {
		return nil, err
	}
	return res, nil
}

func partNumber(p *Patch) int {
	if p.Parts > 1 {
		return p.Part
	}
	return 0
}

func touchedBlobs(t *tree) map[string]string {
	m := make(map[string]string, len(t.touched))
	for p := range t.touched {
		if f, ok := t.files[p]; ok {
			m[p] = f.hash.String()
		} else {
			m[p] = ""
		}
	}
	return m
}

func commitPatch(t *tree, p *Patch, parent plumbing.Hash) (plumbing.Hash, error) {
	root, err := t.writeTree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	author := object.Signature{Name: p.Header.Author.Name, Email: p.Header.Author.Email, When: p.Header.AuthorDate}
	c := &object.Commit{
		Author:       author,
		Committer:    object.Signature{Name: Committer, Email: committerEmail, When: p.Header.AuthorDate},
		Message:      p.Header.Message() + "\n",
		TreeHash:     root,
		ParentHashes: []plumbing.Hash{parent},
	}
	obj := t.store.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return t.store.SetEncodedObject(obj)
}

func setRefs(repo *git.Repository, base, head plumbing.Hash, branch string) error {
	refs := []*plumbing.Reference{plumbing.NewHashReference(UpstreamRef, base)}
	if branch != "" {
		name := plumbing.NewBranchReferenceName(branch)
		refs = append(refs,
			plumbing.NewHashReference(name, head),
			plumbing.NewSymbolicReference(plumbing.HEAD, name))
	} else {
		refs = append(refs, plumbing.NewHashReference(plumbing.HEAD, head))
	}
	for _, r := range refs {
		if err := repo.Storer.SetReference(r); err != nil {
			return fmt.Errorf("set %s: %w", r.Name(), err)
		}
	}
	return nil
}
