//go:build integration

// An external test: apply, which it applies the lines with, imports
// typecheck for check --compile.
package typecheck_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/typecheck"
)

// Every shipped line builds patch by patch: applied to its real upstream,
// each patch's Go imports of the upstream module resolve in the tree as it
// stands after that patch (parsed, cheap), and the finished tree
// type-checks (the packages the series changes and their dependents, with
// tests, compiled but not linked) as `check --compile` and a finished
// rebase check it. Cost: the upstream trees come from the epp-build cache
// (fetched when it lacks them); the type-check compiles the lines' module
// graphs: measured on 2 cores, v1.4.2 takes 40 s with a warm Go build
// cache and 9.5 min cold (v0.7.0 took 36 min cold on a machine loaded
// several times over), and the go command fetches the modules the trees
// require through GOPROXY when the module cache lacks them.
var shippedLines = filepath.Join("..", "..", "patches")

func TestEveryLineTypeChecksPatchByPatch(t *testing.T) {
	testenv.Tool(t, "go", "the type-check runs the go command")
	testenv.Tool(t, "gcc", "cgo compiles the C API binding's preamble")
	versions, err := recipe.Versions(shippedLines)
	require.NoError(t, err)
	opt := apply.Options{Fetcher: apply.Fetcher{Kind: source.Auto, Notice: func(f string, a ...any) { t.Logf("notice: "+f, a...) }}}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			r, err := recipe.LoadVersion(shippedLines, v)
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
			defer cancel()
			tree := filepath.Join(t.TempDir(), "tree")
			res, err := apply.Recipe(ctx, r, tree, opt)
			if err != nil {
				testenv.Require(t, "the upstream of "+v, err.Error())
			}
			missing, err := typecheck.ImportsEachPatch(res.Dir)
			require.NoError(t, err)
			for _, m := range missing {
				assert.Fail(t, "a patch does not compile on its own", m.Error())
			}
			start := time.Now()
			checked, err := typecheck.Tree(ctx, res.Dir, typecheck.Options{})
			require.NoError(t, err, "%s does not compile", v)
			t.Logf("%s: %s (%s)", v, checked, time.Since(start).Round(time.Second))
		})
	}
}
