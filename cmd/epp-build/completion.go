package main

import (
	"os"
	"strings"

	"github.com/epp-build/epp-build/internal/progress"

	"github.com/epp-build/epp-build/internal/bundled"
	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/pipeline"
	"github.com/epp-build/epp-build/internal/platform"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/spf13/cobra"
)

// registerCompletions gives every command's flags of the same name the
// same dynamic completion, so a new command gets it by naming its flags
// like the others. Versions are read from --patches at completion time.
func registerCompletions(root *cobra.Command, g *globalFlags) {
	fixed := func(values ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	versions := func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return recipeVersions(cmd, g, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	var kinds []string
	for _, k := range source.Kinds {
		kinds = append(kinds, string(k))
	}
	byFlag := map[string]cobra.CompletionFunc{
		"version":  versions,
		"extends":  versions,
		"since":    versions,
		"platform": platformCompletion,
		"source":   fixed(kinds...),
		"compile":  fixed(pipeline.CompileHost, pipeline.CompileContainer),
		"progress": fixed(progress.Modes...),
		"output":   fixed(outfmt.Names...),
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for name, complete := range byFlag {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, complete)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if c, _, err := root.Find([]string{"diff-series"}); err == nil && c.Name() == "diff-series" {
		c.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) >= 2 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return recipeVersions(cmd, g, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	}
}

// recipeVersions lists the versions that start with prefix in the recipe
// set the command would read: --patches, EPP_BUILD_PATCHES, ./patches,
// else the recipes built into the binary (read without writing them out).
// Nothing when a named folder cannot be read: completion must never fail
// loudly.
func recipeVersions(cmd *cobra.Command, g *globalFlags, prefix string) []string {
	dir := g.patches
	if dir == "" {
		dir = checkoutPatches
	}
	names, err := recipe.Versions(dir)
	if err != nil && !cmd.Flags().Changed("patches") && os.Getenv("EPP_BUILD_PATCHES") == "" {
		names = bundled.Versions()
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// platformCompletion completes the last element of a comma list, so
// `--platform linux/amd64,<TAB>` offers the platforms not yet given.
func platformCompletion(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	given, prefix := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		given, prefix = toComplete[:i+1], toComplete[i+1:]
	}
	var out []string
	for _, p := range platform.Supported {
		if strings.HasPrefix(p, prefix) && !strings.Contains(","+given, ","+p+",") {
			out = append(out, given+p)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
