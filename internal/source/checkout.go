package source

import "context"

// Checkout is Fetch followed by Materialize into dst (which fetches the
// tree again itself when it finds the cache entry damaged). It is what a
// command that just wants a work tree calls.
func Checkout(ctx context.Context, req Request, dst string) (*Tree, error) {
	tree, err := Fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := tree.Materialize(ctx, dst); err != nil {
		return nil, err
	}
	return tree, nil
}
