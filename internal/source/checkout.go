package source

import (
	"context"
	"errors"
)

// Checkout is Fetch followed by Materialize into dst, refetching once when
// Materialize finds the cache entry corrupt (a damaged file the cheap Fetch
// verification cannot see). It is what a command that just wants a work
// tree calls.
func Checkout(ctx context.Context, req Request, dst string) (*Tree, error) {
	tree, err := Fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	err = tree.Materialize(ctx, dst)
	if !errors.Is(err, ErrCorrupt) {
		if err != nil {
			return nil, err
		}
		return tree, nil
	}
	req.notice("%v", err)
	// Fetch now drops the marked entry and fetches the tree again.
	if tree, err = Fetch(ctx, req); err != nil {
		return nil, err
	}
	if err := tree.Materialize(ctx, dst); err != nil {
		return nil, err
	}
	return tree, nil
}
