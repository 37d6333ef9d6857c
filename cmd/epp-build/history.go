package main

import (
	"context"

	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/review"
	"github.com/epp-build/epp-build/internal/source"
)

// ancestry wires the source stage's upstream history for rebase: which
// picks' Upstream: commits the new pin already has.
func ancestry(f *recipeFlags) backport.Ancestry {
	return func(ctx context.Context, repository string, commits []string, pin string) (map[string]bool, error) {
		h, err := source.OpenHistory(ctx, f.cacheDir, repository, pin)
		if err != nil {
			return nil, err
		}
		defer h.Close()
		in := map[string]bool{}
		for _, c := range commits {
			if in[c], err = h.IsAncestor(ctx, c, pin); err != nil {
				return nil, err
			}
		}
		return in, nil
	}
}

// distance wires the source stage's history for rebase: how many commits
// the old pin has that the new lacks, and the other way round.
func distance(f *recipeFlags) backport.Distance {
	return func(ctx context.Context, repository, oldPin, newPin string) (int, int, error) {
		h, err := source.OpenHistory(ctx, f.cacheDir, repository, oldPin, newPin)
		if err != nil {
			return 0, 0, err
		}
		defer h.Close()
		behind, err := h.Between(ctx, newPin, oldPin, nil)
		if err != nil {
			return 0, 0, err
		}
		ahead, err := h.Between(ctx, oldPin, newPin, nil)
		if err != nil {
			return 0, 0, err
		}
		return len(behind), len(ahead), nil
	}
}

// upstreamHistory wires the source stage's upstream history for the
// review commands: the commits between two pins that touch given files,
// fetched from mirror (--upstream or EPP_BUILD_UPSTREAM) when set, as
// apply and rebase fetch, else from the recipe's repository.
func upstreamHistory(cacheDir, mirror string) review.History {
	return func(ctx context.Context, repository, from, to string, paths []string) ([]source.Commit, error) {
		if mirror != "" {
			repository = mirror
		}
		h, err := source.OpenHistory(ctx, cacheDir, repository, from, to)
		if err != nil {
			return nil, err
		}
		defer h.Close()
		return h.Between(ctx, from, to, paths)
	}
}
