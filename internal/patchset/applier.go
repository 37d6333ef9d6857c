package patchset

import (
	"context"

	"github.com/epp-build/epp-build/internal/recipe"
)

// Applier applies r's series into out, which must not exist: the source
// and patchset stages, wired by the caller, so that the packages that
// edit a series (seriesedit, backport) do not depend on how it fetches.
type Applier func(ctx context.Context, r *recipe.Recipe, out string) error
