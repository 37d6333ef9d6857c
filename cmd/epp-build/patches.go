package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/epp-build/epp-build/internal/buildinfo"
	"github.com/epp-build/epp-build/internal/bundled"
	"github.com/epp-build/epp-build/internal/guard"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/source"
)

// checkoutPatches is the recipes folder of a checkout, looked for in the
// working directory.
const checkoutPatches = "patches"

// readsRecipes are the commands (paths below the root) that read the
// series and never write it: they run from the recipes built into the
// binary when there is no recipes folder. needsRecipesFolder are those
// that rewrite a series from its plugins/ and ffi/ source or edit it, or
// report on a checkout's. Commands in neither read no series.
var (
	readsRecipes = map[string]bool{
		"versions": true, "apply": true, "build": true, "log": true, "diff-series": true, "lint": true,
		"series": true, "series list": true, "status": true, "cache prune": true,
	}
	needsRecipesFolder = map[string]bool{
		"check": true, "regen": true, "pick": true, "rebase": true, "bump": true,
		"series reword": true, "series drop": true, "series move": true, "series squash": true,
	}
)

// resolvePatches picks the recipe set for a command that reads one (see
// bundled.Resolve), checks the versions it names against a built-in set
// and says on stderr which set it used. A command given --recipe reads no
// set, so nothing is written out for it.
func (g *globalFlags) resolvePatches(cmd *cobra.Command) error {
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	if g.patches == "" {
		g.patches = checkoutPatches
	}
	if !readsRecipes[name] && !needsRecipesFolder[name] {
		return nil
	}
	if f := cmd.Flags().Lookup("recipe"); f != nil && f.Changed {
		return nil
	}
	req := bundled.Request{Command: name, Env: os.Getenv("EPP_BUILD_PATCHES"), Checkout: checkoutPatches,
		NeedsFolder: needsRecipesFolder[name], EppBuild: buildinfo.Read().Version}
	// apply --regen rewrites the generated patches before applying.
	if f := cmd.Flags().Lookup("regen"); f != nil && f.Changed && f.Value.String() == "true" {
		req.Command, req.NeedsFolder = req.Command+" --regen", true
	}
	if cmd.Flags().Changed("patches") {
		req.Flag = g.patches
	}
	if req.Flag == "" && req.Env == "" && !req.NeedsFolder {
		var err error
		if req.CacheDir, err = cacheDirOf(cmd); err != nil {
			return err
		}
	}
	set, err := bundled.Resolve(req)
	var noFolder *bundled.NeedsFolderError
	if errors.As(err, &noFolder) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	g.patches, g.set = set.Dir, &set
	if err := set.CheckVersions(versionsNamed(cmd, name)...); err != nil {
		return err
	}
	if quiet(cmd) {
		return nil
	}
	text := fmt.Sprintf("epp-build: recipes: %s\n", set)
	if set.Repaired {
		text = "epp-build: warning: the cached copy of the built-in recipes differed from this binary's and was written again\n" + text
	}
	// Printed with the command's first word on stderr, or at its end
	// (execute), never before a usage error.
	cmd.SetErr(&deferredNotice{w: cmd.ErrOrStderr(), text: text})
	return nil
}

// cacheDirOf is the command's --cache-dir, else the user cache folder's.
func cacheDirOf(cmd *cobra.Command) (string, error) {
	if f := cmd.Flags().Lookup("cache-dir"); f != nil && f.Value.String() != "" {
		return f.Value.String(), nil
	}
	return source.CacheDir()
}

// versionsNamed are the versions the command line names: --version
// (repeatable for build), log's --since and diff-series' arguments.
func versionsNamed(cmd *cobra.Command, name string) []string {
	var out []string
	for _, flag := range []string{"version", "since"} {
		f := cmd.Flags().Lookup(flag)
		if f == nil || !f.Changed {
			continue
		}
		if s, ok := f.Value.(pflag.SliceValue); ok {
			out = append(out, s.GetSlice()...)
		} else {
			out = append(out, f.Value.String())
		}
	}
	if name == "diff-series" {
		out = append(out, cmd.Flags().Args()...)
	}
	return out
}

// quiet: the user asked for no progress (-q, --progress quiet), and the
// notice of the recipe set is progress of a kind; the build report still
// records the set.
func quiet(cmd *cobra.Command) bool {
	if f := cmd.Flags().Lookup("quiet"); f != nil && f.Value.String() == "true" {
		return true
	}
	f := cmd.Flags().Lookup("progress")
	return f != nil && f.Value.String() == "quiet"
}

// adviseOwnFolder turns advice that would name the cached copy of the
// built-in recipes into advice naming a folder the user owns. The refusal
// is made again rather than marked, since a wrapper may already have
// formatted its text; its own message names the tree, so nothing is lost.
func (g *globalFlags) adviseOwnFolder(err error) error {
	var local *guard.LocalChangesError
	if g.set == nil || g.set.Kind != bundled.BuiltIn || !errors.As(err, &local) {
		return err
	}
	own := *local
	own.BuiltIn = true
	return &own
}

// recipesRecord is the recipe set for build's report: the set resolved
// for the command, or the --recipe folder.
func (g *globalFlags) recipesRecord(recipeDir string) (*report.Recipes, error) {
	if recipeDir != "" {
		sum, err := bundled.FolderDigest(recipeDir)
		if err != nil {
			return nil, err
		}
		return &report.Recipes{Kind: "--recipe", Dir: recipeDir, SHA256: sum}, nil
	}
	if g.set == nil {
		return nil, nil
	}
	r := &report.Recipes{Kind: string(g.set.Kind), Dir: g.set.Dir, SHA256: g.set.Digest}
	if g.set.Kind == bundled.BuiltIn {
		r.Dir, r.EppBuild = "", g.set.EppBuild
		return r, nil
	}
	sum, err := bundled.FolderDigest(g.set.Dir)
	if err != nil {
		return nil, err
	}
	r.SHA256 = sum
	return r, nil
}
