package apply

import (
	"context"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/typecheck"
)

// Gate is the check command, a CI gate in one call: r's module version
// against its commit, then its series against what apply and export make,
// then, with compile, the type-check a finished rebase runs.
func Gate(ctx context.Context, r *recipe.Recipe, opt Options, compile bool) (*Regenerated, error) {
	if err := opt.CheckModuleVersion(ctx, r); err != nil {
		return nil, err
	}
	var typeCheck func(ctx context.Context, tree string) (string, error)
	if compile {
		typeCheck = TypeCheck
	}
	return CheckCompiles(ctx, r, opt, typeCheck)
}

// TypeCheck type-checks the Go packages of tree that its series changes
// and every package importing one, and says what it covered.
func TypeCheck(ctx context.Context, tree string) (string, error) {
	res, err := typecheck.Tree(ctx, tree, typecheck.Options{})
	if err != nil {
		return "", err
	}
	return res.String(), nil
}
