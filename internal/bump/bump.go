// Package bump raises a release line's Go dependencies: in the line's
// patched tree, go get and go mod tidy make one commit, which is appended
// to the series as one patch with Fixes: trailers naming the findings it
// fixes; --fix-called works out the bumps from a scan. The series is
// written whole or not at all.
package bump

import (
	"context"
	"errors"
	"fmt"
	"go/version"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/mod/module"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/dirswap"
	"github.com/epp-build/epp-build/internal/export"
	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/typecheck"
	"github.com/epp-build/epp-build/internal/vulns"
)

// Request says what to raise in which line.
type Request struct {
	Recipe *recipe.Recipe
	Apply  apply.Options
	// Modules are the MODULE@VERSION the user named.
	Modules []module.Version
	// Fixes are ids the user says the bump fixes (GO-YYYY-NNNN).
	Fixes []string
	// Toolchain is the Go release the line is to be built with; "" keeps
	// the recipe's.
	Toolchain string
	// FixCalled scans the line and adds the bumps that remove its called
	// findings.
	FixCalled bool
	DryRun    bool
	// NoVerify writes a bump whose tree does not type-check.
	NoVerify bool
	// DB is the vulnerability database FixCalled scans against.
	DB string
	// Env is added to the go commands' environment (tests point the
	// module proxy and the caches elsewhere with it).
	Env []string
	// AuthorDir is where git is asked for the author; "" = here.
	AuthorDir string
	// ShowPlan, when set, is given the result with its plan before
	// anything is fetched for the plan or written.
	ShowPlan func(*Result) error
	Progress *progress.Reporter
}

// Result says what bump did, or with DryRun would do.
type Result struct {
	Version string `json:"version"`
	Plan    *Plan  `json:"plan"`
	// Proposed is the Go release a scan found would fix the standard
	// library's called findings, when --toolchain did not ask for one.
	Proposed *Bump `json:"proposed_toolchain,omitempty"`
	// Fixes are the ids the patch's Fixes: trailers name.
	Fixes []string `json:"fixes,omitempty"`
	// Patch is the file appended to the series; "" when only the recipe
	// changed or nothing was written.
	Patch     string            `json:"patch,omitempty"`
	Subject   string            `json:"subject,omitempty"`
	TypeCheck *typecheck.Result `json:"typecheck,omitempty"`
	DryRun    bool              `json:"dry_run,omitempty"`
	// Written is false when nothing was written: a dry run, or nothing to do.
	Written bool `json:"written"`
}

// Run raises what req asks in its line and writes the series, or nothing
// when any step fails.
func Run(ctx context.Context, req Request) (*Result, error) {
	if err := CheckRequest(&req); err != nil {
		return nil, err
	}
	r := req.Recipe
	if req.Toolchain != "" && r.Toolchain != "" && version.Compare(req.Toolchain, r.Toolchain) <= 0 {
		return nil, &NotARaiseError{Module: GoModule, Have: r.Toolchain, Asked: req.Toolchain}
	}
	var author object.Signature
	if !req.DryRun {
		var err error
		if author, err = Author(ctx, req.AuthorDir); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "epp-build-bump-")
	if err != nil {
		return nil, fmt.Errorf("make a folder to apply %s in: %w", r.Version, err)
	}
	defer os.RemoveAll(tmp)
	tree := filepath.Join(tmp, "tree")
	if _, err := apply.Recipe(ctx, r, tree, req.Apply); err != nil {
		return nil, fmt.Errorf("apply %s to bump it: %w", r.Version, err)
	}
	have, err := requirements(tree)
	if err != nil {
		return nil, fmt.Errorf("bump %s: %w", r.Version, err)
	}
	if err := checkRaises(have, req.Modules); err != nil {
		return nil, err
	}
	res := &Result{Version: r.Version, DryRun: req.DryRun}
	if res.Plan, res.Proposed, err = plan(ctx, req, have); err != nil {
		return nil, err
	}
	res.Fixes = allFixes(req.Fixes, res.Plan)
	if req.ShowPlan != nil {
		if err := req.ShowPlan(res); err != nil {
			return nil, err
		}
	}
	if req.DryRun || (len(res.Plan.Bumps) == 0 && res.Plan.Toolchain == nil) {
		return res, nil
	}
	var patches []export.Patch
	if len(res.Plan.Bumps) > 0 {
		if patches, err = raise(ctx, req, tree, res, author); err != nil {
			return nil, err
		}
	}
	err = dirswap.Replace(r.Dir, func(staging string) error {
		into := *r
		into.Dir = staging
		if patches != nil {
			if err := export.WriteRecipe(&into, patches); err != nil {
				return err
			}
		}
		if res.Plan.Toolchain != nil {
			return recipe.SetToolchain(staging, res.Plan.Toolchain.To)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("write the series of %s: %w", r.Version, err)
	}
	res.Written = true
	return res, nil
}

// plan is the bumps the run makes: the modules named, then those a scan
// adds (--fix-called), and Go when --toolchain asks; the toolchain a scan
// found would help, when --toolchain did not ask, is proposed apart.
func plan(ctx context.Context, req Request, have map[string]string) (*Plan, *Bump, error) {
	var findings []vulns.Finding
	var ranges map[string][]vulns.Range
	var scanned Plan
	goVersion := req.Recipe.Toolchain
	if req.FixCalled {
		t, err := scan(ctx, req)
		if err != nil {
			return nil, nil, err
		}
		if ranges, err = t.Ranges(); err != nil {
			return nil, nil, fmt.Errorf("read the scan of %s: %w", req.Recipe.Version, err)
		}
		findings = t.Findings
		scanned = PlanFixes(findings, ranges)
		if goVersion == "" {
			goVersion = t.GoVersion
		}
	}
	out := &Plan{Bumps: []Bump{}, Unfixed: scanned.Unfixed}
	named := map[string]bool{}
	for _, m := range req.Modules {
		named[m.Path] = true
		out.Bumps = append(out.Bumps, Bump{Module: m.Path, From: have[m.Path], To: m.Version,
			Fixes: FixedBy(findings, ranges, m.Path, m.Version)})
	}
	for _, b := range scanned.Bumps {
		if !named[b.Module] {
			out.Bumps = append(out.Bumps, b)
		}
	}
	var proposed *Bump
	switch {
	case req.Toolchain != "":
		out.Toolchain = &Bump{Module: GoModule, From: goVersion, To: req.Toolchain,
			Fixes: FixedBy(findings, ranges, GoModule, req.Toolchain)}
	case scanned.Toolchain != nil:
		proposed = scanned.Toolchain
	}
	return out, proposed, nil
}

// scan scans the line as `vulns --version` does: applied into a folder of
// its own, with the Go its recipe names, so the standard library's
// findings are those of the Go the line is built with.
func scan(ctx context.Context, req Request) (*vulns.Target, error) {
	rep, err := vulns.Scan(ctx, vulns.Request{Recipes: []*recipe.Recipe{req.Recipe}, Apply: req.Apply, DB: req.DB,
		Env: append(os.Environ(), req.Env...), Progress: req.Progress})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", req.Recipe.Version, err)
	}
	return rep.Targets[0], nil
}

// allFixes are the ids the patch names: the user's, and those the bumps
// fix (the toolchain's too, though only the recipe carries it: the patch
// is where a reader of the series looks for them).
func allFixes(user []string, p *Plan) []string {
	out := slices.Clone(user)
	for _, b := range p.Bumps {
		out = append(out, b.Fixes...)
	}
	if p.Toolchain != nil {
		out = append(out, p.Toolchain.Fixes...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// raise runs go get and go mod tidy in tree, type-checks it, commits the
// change and exports the series with the new patch last.
func raise(ctx context.Context, req Request, tree string, res *Result, author object.Signature) ([]export.Patch, error) {
	r := req.Recipe
	args := []string{"get"}
	for _, b := range res.Plan.Bumps {
		args = append(args, b.Module+"@"+b.To)
	}
	task := req.Progress.Start("go get in "+r.Version, 0)
	if err := goCommand(ctx, tree, req.Env, args...); err != nil {
		task.Abort()
		return nil, fmt.Errorf("bump %s: %w", r.Version, err)
	}
	if err := goCommand(ctx, tree, req.Env, "mod", "tidy"); err != nil {
		task.Abort()
		return nil, fmt.Errorf("bump %s: %w", r.Version, err)
	}
	task.Done()
	now, err := requirements(tree)
	if err != nil {
		return nil, fmt.Errorf("bump %s: %w", r.Version, err)
	}
	// go get may raise a module further than asked when another bump
	// needs more: the patch says what it did.
	for i, b := range res.Plan.Bumps {
		if v := now[b.Module]; v != "" && v != b.To {
			res.Plan.Bumps[i].To = v
		}
	}
	if !req.NoVerify {
		check := req.Progress.Start("type-check "+r.Version, 0)
		tc, err := typecheck.Check(ctx, tree, []string{"go.mod", "go.sum"}, typecheck.Options{Env: req.Env})
		if err != nil {
			check.Abort()
			var notCompiling *typecheck.Error
			if errors.As(err, &notCompiling) {
				return nil, fmt.Errorf("%s with %s: %w (--no-verify writes the patch anyway)", r.Version, Subject(res.Plan.Bumps), err)
			}
			return nil, fmt.Errorf("type-check %s: %w", r.Version, err)
		}
		check.Done()
		res.TypeCheck = tc
	}
	changed, err := typecheck.Changed(tree)
	if err != nil {
		return nil, fmt.Errorf("bump %s: %w", r.Version, err)
	}
	afterMod := slices.Contains(changed, "go.mod") || slices.Contains(changed, "go.sum")
	res.Subject = Subject(res.Plan.Bumps)
	if err := commit(tree, Message(res.Plan.Bumps, res.Fixes, afterMod), author); err != nil {
		return nil, fmt.Errorf("bump %s: %w", r.Version, err)
	}
	patches, err := export.Series(tree)
	if err != nil {
		return nil, err
	}
	res.Patch = patches[len(patches)-1].Name
	return patches, nil
}

// commit records go.mod and go.sum, the only files go get and go mod
// tidy change, as one commit by author.
func commit(tree, msg string, author object.Signature) error {
	repo, err := git.PlainOpen(tree)
	if err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if _, err := os.Stat(filepath.Join(tree, f)); err != nil {
			continue
		}
		// SkipStatus: the status of the whole upstream tree is slow and
		// nothing else changed.
		if err := wt.AddWithOptions(&git.AddOptions{Path: f, SkipStatus: true}); err != nil {
			return fmt.Errorf("stage %s: %w", f, err)
		}
	}
	_, err = wt.Commit(msg, &git.CommitOptions{Author: &author, Committer: &author})
	return err
}
