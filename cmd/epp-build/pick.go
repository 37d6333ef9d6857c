package main

import (
	"context"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/spf13/cobra"
)

// applier wires the source and patchset stages for the backport flows.
func applier(f *recipeFlags, cmd *cobra.Command) backport.Applier {
	return func(ctx context.Context, r *recipe.Recipe, out string) error {
		opt, err := f.options(cmd.ErrOrStderr(), false)
		if err != nil {
			return err
		}
		_, err = apply.Recipe(ctx, r, out, opt)
		return err
	}
}

func newPickCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var opt backport.PickOptions
	var extends string
	cmd := &cobra.Command{
		Use:   "pick --version V [--extends BASE] (PATCH... | --from REPO REV...)",
		Short: "Add patches or commits to a version's series, keeping authorship and provenance",
		Long: `pick applies the version's series in a temporary folder, adds the picked changes on
top (each keeps its author, date and message, and gets Upstream: and Reason: trailers)
and, when every pick applied, writes them into the version folder. Sources are patch
files (one or many patches each, mbox included) or, with --from, revisions and ranges
(A..B) of a local repository; a repository whose origin is a web host gives each
commit its URL as Upstream: unless --upstream-link says otherwise.

With --extends, a new version is created that extends BASE: v1.4.3 = v1.4.2 + picks.

` + exitCodesHelp,
		Example: `  epp-build pick --version v1.4.3 --extends v1.4.2 --reason "fixes stuck streams" \
      --upstream-link https://github.com/kubernetes-sigs/gateway-api-inference-extension/pull/2901 fix.patch
  epp-build pick --version v1.4.2 --from ../gaie --reason "backport" 1a2b3c4d 5e6f7a8b..9c0d1e2f`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := backport.PickInto(cmd.Context(), backport.PickRequest{
				Root: g.patches, Version: f.version, Extends: extends, Sources: args, Options: opt,
				Load: func() (*recipe.Recipe, error) { return f.load(g) }, Apply: applier(&f, cmd),
			})
			backport.WritePicked(cmd.OutOrStdout(), res)
			return err
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&extends, "extends", "", "create --version as a new version extending this one")
	cmd.Flags().StringVar(&opt.Repo, "from", "", "a local git repository: the arguments are its revisions or ranges")
	cmd.Flags().StringVar(&opt.Upstream, "upstream-link", "", "Upstream: trailer for every pick (PR or commit URL)")
	cmd.Flags().StringVar(&opt.Reason, "reason", "", "Reason: trailer for every pick (why the line carries it)")
	return cmd
}
