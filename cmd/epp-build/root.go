package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

const exitCodesHelp = `Exit codes:
  0  success (also: already applied, nothing to do)
  1  failure not listed below (I/O, network, a tool that failed)
  2  usage: unknown command or version, wrong argument count, missing or bad
     flags (checked before anything is fetched or compiled)
  3  a patch does not apply (conflict, missing or existing file)
  4  refused input: invalid recipe, unreadable or hostile patch, an --out that
     holds changes apply did not make (see apply --help) or was not made by apply
  5  verification failed (commit, tag or module hash mismatch; a C binding whose
     prototypes differ from the C API library's header; a missing or mismatched
     attestation)
  6  check: committed patches are stale; rebase, pick: stopped at a conflict;
     rebase: stopped at a failed --exec command
  7  lint found problems
  8  build preflight: something the build needs outside this machine is missing
     or unreachable (BuildKit node, registry, C API pin, builder, SBOM-generator
     or base image); every one is listed with the flag that changes it
  130 interrupted (nothing half-written is left behind)`

// usageArgs makes a wrong argument count a usage error (exit 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{fmt.Errorf("%w; see `%s --help`", err, cmd.CommandPath())}
		}
		return nil
	}
}

type globalFlags struct {
	patches string
	// bundled: patches is the series embedded in the binary (no
	// patches/ folder here and no --patches).
	bundled bool
}

func newRootCommand() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "epp-build",
		Short: "Regenerate the Dynamo-enabled Endpoint Picker from upstream GAIE",
		Long: `epp-build clones a pinned Gateway API Inference Extension (GAIE) version, applies
a versioned patch series that adds Dynamo's routing plugins, and builds the
multi-arch EPP image.

` + exitCodesHelp,
		Example: `  epp-build versions
  epp-build apply --version v0.7.0 --out ./gaie
  epp-build export --dir ./gaie --to patches/v0.7.0
  epp-build check --version v0.7.0
  epp-build pick --version v1.4.3 --extends v1.4.2 --reason "..." fix.patch
  epp-build rebase --version v1.4.2 --onto v1.5.0 --as v1.5.0-dyn --dir ./rebase`,
		SilenceUsage: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return g.resolvePatches(cmd)
		},
		SilenceErrors: true,
		// Without this, cobra reports an unknown command as a plain error;
		// it is a usage error (exit 2).
		Args:                       cobra.ArbitraryArgs,
		SuggestionsMinimumDistance: 2,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			msg := fmt.Sprintf("unknown command %q; see `epp-build --help`", args[0])
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += " (did you mean " + strings.Join(s, " or ") + "?)"
			}
			return usageError{errors.New(msg)}
		},
	}
	defaultPatches := os.Getenv("EPP_BUILD_PATCHES")
	if defaultPatches == "" {
		defaultPatches = "patches"
	}
	root.PersistentFlags().StringVar(&g.patches, "patches", defaultPatches, "folder holding one recipe folder per version (env EPP_BUILD_PATCHES; default ./patches when it exists, else the recipes built into this binary)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		newVersionsCommand(g),
		newApplyCommand(g),
		newExportCommand(g),
		newCheckCommand(g),
		newRegenCommand(g),
		newPickCommand(g),
		newRebaseCommand(g),
		newStatusCommand(g),
		newLogCommand(g),
		newDiffSeriesCommand(g),
		newLintCommand(g),
		newSeriesCommand(g),
		newBuildCommand(g),
		newInspectCommand(),
		newVerifyCommand(),
		newSignCommand(),
		newVersionCommand(),
	)
	for _, c := range root.Commands() {
		if c.Args != nil {
			c.Args = usageArgs(c.Args)
		}
	}
	setVersionFlag(root)
	registerCompletions(root, g)
	return root
}
