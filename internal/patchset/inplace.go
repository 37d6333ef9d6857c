package patchset

import (
	"context"
	"path/filepath"
	"sort"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/epp-build/epp-build/internal/gitstore"
	"github.com/epp-build/epp-build/internal/outdir"
)

// A re-apply onto a clean tree of the same upstream commit (the edit loop:
// a patch changed, apply again) rewrites only the files whose content or
// mode changes, instead of the whole tree.
//
// The new series is computed in memory against the base commit, which the
// tree's own .git holds, so nothing is fetched and a conflict writes
// nothing. The writes are journalled (see outdir.Journal): interrupting
// (Ctrl-C) before the journal is written leaves the tree as it was; after,
// the few remaining writes are finished.

// journal is a re-apply in place that has started writing.
type journal = outdir.Journal[Record]

// stopAfterJournal lets a test stop a re-apply where a crash would.
var stopAfterJournal *func() error

// inPlace is whether a re-apply onto ex may update the tree in place: the
// same upstream and version, and nothing there that apply did not make.
func inPlace(r *recipe.Recipe, ex *existing, opt Options) bool {
	return ex != nil && len(ex.reasons) > 0 && ex.local.Empty() && !opt.Force &&
		ex.rec.UpstreamCommit == r.Upstream.Commit && ex.rec.Version == r.Version
}

// reapplyInPlace applies the series to out's base commit in memory and
// writes only what differs from what out holds.
//
// untracked are the user's untracked and ignored files: they stay, and a
// file of the new series at one of their paths refuses the re-apply.
func reapplyInPlace(ctx context.Context, patches []*Patch, out string, ex *existing, untracked []string, opt Options) (*Outcome, error) {
	repo := ex.repo
	base := plumbing.NewHash(ex.rec.Base)
	fresh := memory.NewStorage()
	// The files the old series touched hold its content, not the base's.
	stale := seriesPaths(&ex.rec.Result)
	t, err := baseFromIndex(out, repo.Storer, fresh, ex.idx, ex.trees, base, stale)
	if err != nil {
		// A path the base cannot answer quickly (a file where the old
		// series made a folder): read the base's whole tree instead.
		if t, err = loadTree(out, repo.Storer, fresh, base); err != nil {
			return nil, err
		}
		t.stale = map[string]bool{}
		for _, p := range stale {
			t.stale[p] = true
		}
	}
	defer t.spills.Remove()
	res, err := applySeries(ctx, t, patches, opt, base)
	if err != nil {
		return nil, err
	}
	paths := differing(ex.idx, t, t.stale, seriesPaths(res))
	var written []string
	for _, p := range paths {
		if _, ok := t.files[p]; ok {
			written = append(written, p)
		}
	}
	if inWay := untrackedInTheWay(untracked, written); len(inWay) > 0 {
		return nil, &UntrackedInTheWayError{Dir: out, Files: inWay}
	}
	rec := *ex.rec
	rec.Result = *res
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if res.Pack, err = gitstore.WritePack(filepath.Join(out, ".git"), fresh, objectIDs(fresh), t.spills.Blobs()); err != nil {
		return nil, err
	}
	rec.Pack = res.Pack
	j := &journal{Head: res.Head, Branch: opt.Branch, Paths: paths, Record: &rec}
	if err := outdir.WriteJournal(out, j); err != nil {
		return nil, err
	}
	if stopAfterJournal != nil {
		if err := (*stopAfterJournal)(); err != nil {
			return nil, err
		}
	}
	if err := completeJournal(out, repo, t, j, ex.idx); err != nil {
		return nil, err
	}
	dropReplacedPack(repo, out, ex.rec, &rec)
	return &Outcome{Dir: out, Reasons: ex.reasons, Record: &rec, InPlace: true, Rewritten: paths}, nil
}

// differing lists the paths among the candidates whose entry in t (absent:
// deleted) differs from out's index, which for a clean tree is what its
// files hold.
func differing(idx *index.Index, t *tree, old map[string]bool, changed []string) []string {
	candidates := map[string]bool{}
	for p := range old {
		candidates[p] = true
	}
	for _, p := range changed {
		candidates[p] = true
	}
	// idx.Entry scans every entry: index them once.
	entries := make(map[string]*index.Entry, len(idx.Entries))
	for _, e := range idx.Entries {
		entries[e.Name] = e
	}
	var out []string
	for p := range candidates {
		f, inNew := t.files[p]
		e, inOld := entries[p]
		if inNew && inOld && f.hash == e.Hash && f.mode == e.Mode || !inNew && !inOld {
			continue
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// completeJournal writes what j names from t, moves the refs, stores the
// record and drops the journal. Running it again is harmless.
func completeJournal(dir string, repo *git.Repository, t *tree, j *journal, idx *index.Index) error {
	if err := writeOut(dir, t, j.Paths, idx); err != nil {
		return err
	}
	if err := gitstore.SetRefs(repo, plumbing.NewHash(j.Record.Base), plumbing.NewHash(j.Head), j.Branch); err != nil {
		return err
	}
	if err := WriteRecord(dir, j.Record); err != nil {
		return err
	}
	return outdir.RemoveJournal(dir)
}

// finishInterrupted completes a re-apply in place of dir that stopped
// after writing its journal and returns the record it completed; it does
// nothing (and returns nil) when there is none.
func finishInterrupted(dir string) (*Record, error) {
	j, err := outdir.ReadJournal[Record](dir)
	if err != nil || j == nil {
		return nil, err
	}
	repo, done, err := gitstore.Open(dir)
	if err != nil {
		return nil, err
	}
	defer done()
	t, err := loadTree(dir, repo.Storer, memory.NewStorage(), plumbing.NewHash(j.Head))
	if err != nil {
		return nil, err
	}
	t.stale = map[string]bool{}
	for _, p := range j.Paths {
		t.stale[p] = true
	}
	if err := completeJournal(dir, repo, t, j, nil); err != nil {
		return nil, err
	}
	return j.Record, nil
}

// dropReplacedPack removes the pack the previous series wrote once the new
// one has replaced it, so an edit loop does not pile up packs (every run
// would read all their indexes). The new pack holds every object the new
// series needs beyond the base, so only a ref still pointing at an old
// commit keeps the old pack; failing to remove it is harmless.
func dropReplacedPack(repo *git.Repository, dir string, old, now *Record) {
	if old.Pack == "" || old.Pack == now.Pack {
		return
	}
	refs, err := repo.References()
	if err != nil {
		return
	}
	inUse := false
	_ = refs.ForEach(func(r *plumbing.Reference) error {
		if r.Type() == plumbing.HashReference && r.Hash().String() != now.Head && r.Hash().String() != now.Base {
			inUse = true
		}
		return nil
	})
	if inUse {
		return
	}
	_ = gitstore.RemovePack(filepath.Join(dir, ".git"), old.Pack)
}
