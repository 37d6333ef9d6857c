package patchset

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/epp-build/epp-build/internal/gitstore"
)

// UpstreamRef marks the upstream base commit; export takes the commits
// after it as the series.
const UpstreamRef = gitstore.UpstreamRef

// Committer and CommitterEmail say who applied the series. Authors and
// dates come from the patches; a fixed committer with the author's date
// makes commit ids depend only on the inputs.
const (
	Committer      = "epp-build"
	CommitterEmail = "epp-build@invalid"
)

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
	// Pack is the pack file ("pack-<hash>") holding every object the
	// series made; with the base's objects it is all the series needs.
	Pack string `json:"pack,omitempty"`
}

// commits are the series' base and the commit of each patch.
func (r *Result) commits() []plumbing.Hash {
	out := make([]plumbing.Hash, 0, len(r.Patches)+1)
	out = append(out, plumbing.NewHash(r.Base))
	for _, a := range r.Patches {
		out = append(out, plumbing.NewHash(a.Commit))
	}
	return out
}

// Options tune ApplyTo and ApplyToRepo.
type Options struct {
	// Branch is checked out at the last commit (for example
	// "epp-build/v0.7.0").
	Branch string
	// Progress is called before each patch.
	Progress func(done, total int, p *Patch)
	// Overlays, by patch file, replace folders with generated content
	// right after that patch applies (regen).
	Overlays map[string][]Overlay
	// Force lets ApplyTo replace an output made by apply that holds
	// changes apply did not make, keeping it in a backup folder; a folder
	// apply did not make is refused all the same. It also replaces a clean
	// output as a whole instead of updating it in place. ApplyToRepo, which
	// works on a tree it is given, ignores it.
	Force bool
	// Notice (may be nil) reports a wait for another apply into the same
	// output and the repair of what a killed one left.
	Notice func(format string, args ...any)
}

// check refuses hostile paths and modes in every patch before anything
// is touched; loading a Series runs it.
func check(patches []*Patch) error {
	for _, p := range patches {
		if err := checkPaths(p); err != nil {
			return err
		}
		if err := checkModes(p); err != nil {
			return err
		}
	}
	return nil
}

// ApplyToRepo applies s to the git work tree dir, whose HEAD is the
// upstream base: one commit per patch. Every patch is applied in memory
// first; the files on disk change only after the whole series applied.
func ApplyToRepo(ctx context.Context, dir string, s *Series, opt Options) (*Result, error) {
	return applyToRepo(ctx, dir, s.list(), opt)
}

func applyToRepo(ctx context.Context, dir string, patches []*Patch, opt Options) (*Result, error) {
	repo, done, err := gitstore.Open(dir)
	if err != nil {
		return nil, err
	}
	defer done()
	head, err := repo.Head()
	if err != nil {
		return nil, fmt.Errorf("read HEAD of %s: %w", dir, err)
	}
	// New objects collect in memory and land as one pack at the end:
	// thousands of loose-object files would cost more than the patching.
	fresh := memory.NewStorage()
	t, err := loadTree(dir, repo.Storer, fresh, head.Hash())
	if err != nil {
		return nil, err
	}
	defer t.spills.Remove()
	res, err := applySeries(ctx, t, patches, opt, head.Hash())
	if err != nil {
		return nil, err
	}
	parent := plumbing.NewHash(res.Head)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if res.Pack, err = gitstore.WritePack(filepath.Join(dir, ".git"), fresh, objectIDs(fresh), t.spills.Blobs()); err != nil {
		return nil, err
	}
	if err := writeOut(dir, t, seriesPaths(res), nil); err != nil {
		return nil, err
	}
	if err := gitstore.SetRefs(repo, head.Hash(), parent, opt.Branch); err != nil {
		return nil, err
	}
	return res, nil
}

// objectIDs lists the objects of fresh in the order of their ids, so that
// the same series makes the same pack.
func objectIDs(fresh *memory.Storage) []plumbing.Hash {
	ids := make([]plumbing.Hash, 0, len(fresh.Objects))
	for h := range fresh.Objects {
		ids = append(ids, h)
	}
	slices.SortFunc(ids, func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) })
	return ids
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
		Committer:    object.Signature{Name: Committer, Email: CommitterEmail, When: p.Header.AuthorDate},
		Message:      p.Header.Message() + "\n",
		TreeHash:     root,
		ParentHashes: []plumbing.Hash{parent},
	}
	return gitstore.WriteCommit(t.store, c)
}

// applySeries applies patches to the in-memory tree t, whose state is the
// commit base, and commits each one; nothing is written to disk.
func applySeries(ctx context.Context, t *tree, patches []*Patch, opt Options, base plumbing.Hash) (*Result, error) {
	res := &Result{Base: base.String()}
	generated := map[string]string{} // overlay folder -> the patch that adds it
	parent := base
	for i, p := range patches {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if opt.Progress != nil {
			opt.Progress(i, len(patches), p)
		}
		t.touched = map[string]bool{}
		if name, dir := touchesOverlay(p, generated); name != "" {
			return nil, &FileError{Patch: p.Name(), File: name, Reason: fmt.Sprintf("the folder is generated by %s; change its source instead", dir)}
		}
		offsets, err := applyPatch(t, p)
		if err != nil {
			return nil, err
		}
		if p.Part == p.Parts {
			if err := applyOverlays(t, opt.Overlays[p.File]); err != nil {
				return nil, fmt.Errorf("generate the folders of %s: %w", p.File, err)
			}
			for _, o := range opt.Overlays[p.File] {
				generated[o.Dir] = p.File
			}
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
	return res, nil
}
