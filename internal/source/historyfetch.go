package source

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"

	"github.com/epp-build/epp-build/internal/gitformat"
)

// A history is fetched with the pinned trees' upload-pack client
// (gitstream.go): no depth, commits and trees only when the server can
// filter blobs out (`filter blob:none`; else everything comes), the
// pack decoded as it arrives under the same limits, and kept as received
// in the history's git dir beside the packs of earlier fetches. Each
// object fetched for is recorded under haveRefs, and a later fetch sends
// them as haves, so that it receives only what the history lacks.

// haveRefs holds one ref per object a history fetched the history of.
const haveRefs = "refs/epp-build/have/"

// fetchCommits receives commits and their history into h: asked for by
// hash when the server hands out commits by hash or advertises them as
// a tip, else through the history of every branch and tag, where they
// must turn up.
func (h *History) fetchCommits(ctx context.Context, repository string, commits []string) error {
	return h.fetch(ctx, repository, "history", func(adv *packp.AdvRefs) ([]plumbing.Hash, error) {
		tips := advertisedTips(adv)
		byHash := adv.Capabilities.Supports(capability.AllowReachableSHA1InWant)
		var wants []plumbing.Hash
		allTips := false
		for _, c := range commits {
			if !fullHash.MatchString(c) {
				return nil, fmt.Errorf("%q is not a full commit hash", c)
			}
			hash := plumbing.NewHash(c)
			if byHash || slices.Contains(tips, hash) {
				wants = append(wants, hash)
			} else {
				allTips = true
			}
		}
		if allTips {
			wants = append(wants, tips...)
		}
		return wants, nil
	}, func() error {
		for _, c := range commits {
			if !h.has(c) {
				return fmt.Errorf("the server sent no commit %s: it is in the history of no branch or tag there, and the server does not serve commits by hash", gitformat.Short(c))
			}
		}
		return nil
	})
}

// fetch opens an upload-pack session with repository, asks for what pick
// chooses from the advertisement (less what h holds) and receives it
// into h; then check says whether the fetch got what it was for. h's
// lock is held.
func (h *History) fetch(ctx context.Context, repository, what string, pick func(*packp.AdvRefs) ([]plumbing.Hash, error), check func() error) error {
	_, err := h.fetchAdvertised(ctx, repository, what, pick)
	if err != nil {
		return err
	}
	h.open()
	return check()
}

// fetchAdvertised is fetch's fetch: it returns the advertisement.
func (h *History) fetchAdvertised(ctx context.Context, repository, what string, pick func(*packp.AdvRefs) ([]plumbing.Hash, error)) (*packp.AdvRefs, error) {
	repo := newRemoteRepo(repository)
	lim, err := gitLimitsFromEnv()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, lim.fetchTime, fetchTimeLimit(lim.fetchTime))
	defer cancel()
	ctx, budget := withGitBudget(ctx, lim)
	session, adv, err := openUploadPack(ctx, repo, what)
	if err != nil {
		return nil, overLimit(ctx, budget, err, repo)
	}
	defer session.Close()
	chosen, err := pick(adv)
	if err != nil {
		return nil, err
	}
	var wants []plumbing.Hash
	for _, w := range chosen {
		if h.store().HasEncodedObject(w) != nil {
			wants = append(wants, w)
		}
	}
	if len(wants) == 0 {
		return adv, nil
	}
	haves, err := h.haves()
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp(h.dir, tmpPrefix)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	// The blobs of a server that cannot filter them out only pass
	// through the store that resolves the pack's deltas: the pack keeps
	// them.
	pool, err := newBlobWriter(filepath.Join(scratch, blobsName), time.Now(), nil)
	if err != nil {
		return nil, err
	}
	_, err = requestPack(ctx, session, adv, packWant{wants: wants, haves: haves, blobless: true}, h.dir, repo, what, pool, nil, lim)
	if _, _, cerr := pool.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, overLimit(ctx, budget, err, repo)
	}
	for _, w := range wants {
		if err := h.store().SetReference(plumbing.NewHashReference(plumbing.ReferenceName(haveRefs+w.String()), w)); err != nil {
			return nil, fmt.Errorf("history cache %s: %w", h.dir, err)
		}
	}
	return adv, nil
}

// haves are the objects whose history h holds whole: those it fetched
// for, and its tags.
func (h *History) haves() ([]plumbing.Hash, error) {
	refs, err := h.store().IterReferences()
	if err != nil {
		return nil, err
	}
	defer refs.Close()
	var haves []plumbing.Hash
	err = refs.ForEach(func(r *plumbing.Reference) error {
		name := r.Name().String()
		if r.Type() == plumbing.HashReference && (strings.HasPrefix(name, haveRefs) || strings.HasPrefix(name, "refs/tags/")) &&
			!slices.Contains(haves, r.Hash()) && h.store().HasEncodedObject(r.Hash()) == nil {
			haves = append(haves, r.Hash())
		}
		return nil
	})
	slices.SortFunc(haves, func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) })
	return haves, err
}
