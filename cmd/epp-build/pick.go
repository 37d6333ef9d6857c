package main

import (
	"context"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/spf13/cobra"
)

// applier wires the source and patchset stages for the backport and
// series-edit flows.
func applier(f *recipeFlags, cmd *cobra.Command) patchset.Applier {
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
	var extends, dir string
	var cont, skip, abort bool
	cmd := &cobra.Command{
		Use:   "pick --version V [--extends BASE] (PATCH... | --from REPO REV...) | --continue | --skip | --abort",
		Short: "Add patches or commits to a version's series, keeping authorship and provenance",
		Long: `pick applies the version's series in a temporary folder, adds the picked changes on
top (each keeps its author, date and message, and gets Upstream: and Reason: trailers)
and, when every pick applied, writes them into the version folder. Sources are patch
files (one or many patches each, mbox included) or, with --from, revisions of a local
repository (a work tree or a bare mirror), read as git cherry-pick reads them: a
commit; A..B, the commits B reaches and A does not, oldest first; A^!, A alone (an
empty range is a usage error). A repository whose origin is a web host gives each
commit its URL as Upstream: unless --upstream-link says otherwise. An Upstream: trailer
in a picked commit's message is dropped (the series says where the pick was made from),
and --reason is added even when the message has a Reason: of its own. An author with a
control character in the name or email is refused, and so is a commit whose message
holds a diff (git am would apply it as file changes) or starts its body with From:,
Subject: or Date: (git am would read them as the commit's).

A plain diff (` + "`git diff`" + ` output, or ` + "`diff -u`" + ` with a/ and b/ prefixes, such as
Dynamo's deploy/inference-gateway/epp-patches/*) has no author, date or subject: --author
"Name <email>", --date (RFC 3339 or a git date) and --subject give them. Without them the
author is git's user.name and user.email where pick runs, the date is now (UTC) and the
subject is "Apply FILE" (gaie.patch: "Apply gaie.patch"). The series gets a format-patch
file for it, as for any pick.

With --extends, a new version is created that extends BASE: v1.4.3 = v1.4.2 + picks.

A pick that does not apply is merged three-way, as git am -3 does: its base is the
blob its index line names, looked up in the --from repository and in the work tree
(the upstream pin with the series). A clean merge is committed; where both sides
changed the same lines pick stops (exit 6), naming the pick by abbreviated commit
and subject, leaving its work tree (--dir, or a folder
per --patches under the user cache folder) with diff3 conflict markers around those
lines, new and cleanly merged files staged, and FILE.rej for what cannot be merged.
Fix the files, then --continue (deleting a .rej file drops that change); or --skip,
as git cherry-pick --skip does, to drop that pick (nothing is recorded for it, its
edits are discarded) and go on with the rest; or --abort (the work tree goes, and so
does a version --extends created). A pick whose change the series has already merges
to no change and stops, as git cherry-pick does, with "nothing to record": --skip it.`,
		Example: `  epp-build pick --version v1.4.3 --extends v1.4.2 --reason "fixes stuck streams" \
      --upstream-link https://github.com/kubernetes-sigs/gateway-api-inference-extension/pull/2901 fix.patch
  epp-build pick --version v1.4.2 --from ../gaie --reason "backport" 1a2b3c4d 5e6f7a8b..9c0d1e2f
  epp-build pick --version v1.4.2 --author "Ann Example <ann@example.com>" --subject "Route by model name" \
      --upstream-link https://github.com/ai-dynamo/dynamo/tree/main/deploy/inference-gateway/epp-patches \
      --reason "Dynamo's EPP needs it" gaie.patch
  epp-build pick --continue --dir ./pick
  epp-build pick --skip --dir ./pick`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cont || skip || abort {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := backport.PickInto(cmd.Context(), backport.PickRequest{
				Root: g.patches, Version: f.version, Extends: extends, Sources: args, Options: withConfigDir(opt, g.patches),
				Load: func() (*recipe.Recipe, error) { return f.load(g) }, Apply: applier(&f, cmd),
				Dir: dir, Continue: cont, Skip: skip, Abort: abort, Log: cmd.ErrOrStderr(),
			})
			backport.WritePicked(cmd.OutOrStdout(), res)
			return err
		},
	}
	f.register(cmd)
	f.registerProgress(cmd)
	cmd.Flags().StringVar(&extends, "extends", "", "create --version as a new version extending this one")
	cmd.Flags().StringVar(&opt.Repo, "from", "", "a local git repository, work tree or bare: the arguments are its commits or ranges (A..B, A^!)")
	cmd.Flags().StringVar(&opt.Upstream, "upstream-link", "", "Upstream: trailer for every pick (PR or commit URL)")
	cmd.Flags().StringVar(&opt.Reason, "reason", "", "Reason: trailer for every pick (why the line carries it)")
	cmd.Flags().StringVar(&opt.Author, "author", "", `author of a plain diff, "Name <email>" (default: git's user.name and user.email)`)
	cmd.Flags().StringVar(&opt.Date, "date", "", "author date of a plain diff, RFC 3339 or a git date (default: now, UTC)")
	cmd.Flags().StringVar(&opt.Subject, "subject", "", `subject of a plain diff (default: "Apply FILE")`)
	cmd.Flags().StringVar(&dir, "dir", "", "work tree of the pick, kept at a conflict (default: a folder per --patches under the user cache folder)")
	cmd.Flags().BoolVar(&cont, "continue", false, "go on after fixing a conflict of the pick in --dir")
	cmd.Flags().BoolVar(&skip, "skip", false, "drop the pick stopped at in --dir and go on with the rest")
	cmd.Flags().BoolVar(&abort, "abort", false, "throw the pick in --dir away")
	// --continue, --skip and --abort exclude each other: PickInto refuses
	// two as a usage error (exit 2), where cobra's flag group would exit 1.
	return cmd
}

// withConfigDir reads git's identity for a plain diff in the repository
// the patches live in, the one the picks are committed to.
func withConfigDir(opt backport.PickOptions, patches string) backport.PickOptions {
	opt.ConfigDir = patches
	return opt
}
