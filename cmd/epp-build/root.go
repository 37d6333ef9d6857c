package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/bundled"
)

// usageArgs makes a wrong argument count a usage error (exit 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		var usage usageError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &usage):
			return err
		}
		return usageError{fmt.Errorf("%w; see `%s --help`", err, cmd.CommandPath())}
	}
}

// checkArgsEverywhere gives every command, at every depth, an argument
// check whose failure is a usage error (cobra accepts any arguments for a
// command that sets none) and suggestions for a misspelt subcommand.
func checkArgsEverywhere(c *cobra.Command) {
	if c.Args == nil {
		c.Args = cobra.NoArgs
	}
	c.Args = usageArgs(withFlagRules(c.Args))
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's default, which only its own check sets
	}
	for _, sub := range c.Commands() {
		checkArgsEverywhere(sub)
	}
}

// withFlagRules checks the command's required flags and flag groups
// (such as rebase's --continue, --skip and --abort) with its arguments:
// cobra checks them next and returns a plain error, which would exit 1.
func withFlagRules(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return err
		}
		if err := cmd.ValidateRequiredFlags(); err != nil {
			return err
		}
		return cmd.ValidateFlagGroups()
	}
}

// execute runs the command args name, after refusing any word that names
// no command.
func execute(ctx context.Context, root *cobra.Command, args []string) error {
	if err := checkCommandWords(root, args); err != nil {
		return err
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if notice, ok := cmd.ErrOrStderr().(*deferredNotice); ok {
		if exitCode(ctx, err) == 2 {
			notice.drop()
		} else {
			notice.flush()
		}
	}
	return err
}

type globalFlags struct {
	patches string
	// set is the recipe set patches came from; nil for a command that
	// reads none (or was given --recipe).
	set *bundled.Set
}

func newRootCommand() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "epp-build",
		Short: "Regenerate the Dynamo-enabled Endpoint Picker from upstream GAIE",
		Long: `epp-build clones a pinned Gateway API Inference Extension (GAIE) version, applies
a versioned patch series that adds Dynamo's routing plugins, and builds the
multi-arch EPP image.

Every command's --help ends with the exit codes it can return;
epp-build help exit-codes lists them all.`,
		Example: `  epp-build versions
  epp-build apply --version v0.7.0 --out ./gaie
  epp-build export --dir ./gaie --to patches/v0.7.0
  epp-build check --version v0.7.0
  epp-build pick --version v1.4.3 --extends v1.4.2 --reason "..." fix.patch
  epp-build rebase --version v1.4.2 --onto v1.5.0 --as v1.5.0-dyn --dir ./rebase`,
		SilenceUsage: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			// Path flags first: resolving the recipes may write the
			// built-in set into the cache.
			if err := checkPathFlags(cmd); err != nil {
				return err
			}
			return g.resolvePatches(cmd)
		},
		SilenceErrors: true,
		// Unknown words are refused before cobra runs (checkCommandWords).
		Args:                       cobra.NoArgs,
		SuggestionsMinimumDistance: 2,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	// No "patches" default: the default is ./patches only when it exists
	// (resolvePatches), and help must not say otherwise.
	root.PersistentFlags().StringVar(&g.patches, "patches", os.Getenv("EPP_BUILD_PATCHES"), "folder holding one recipe folder per version (env EPP_BUILD_PATCHES; default ./patches when it exists, else the recipes built into this binary)")
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newVersionsCommand(g),
		newApplyCommand(g),
		newExportCommand(g),
		newCheckCommand(g),
		newRegenCommand(g),
		newPickCommand(g),
		newRebaseCommand(g),
		newStatusCommand(g),
		newCacheCommand(g),
		newLogCommand(g),
		newDiffSeriesCommand(g),
		newLintCommand(g),
		newSeriesCommand(g),
		newBuildCommand(g),
		newVulnsCommand(g),
		newBumpCommand(g),
		newBuilderCommand(),
		newInspectCommand(),
		newVerifyCommand(),
		newSignCommand(),
		newVersionCommand(),
	)
	root.SetHelpCommand(newHelpCommand(root))
	// The help and completion commands cobra would add on Execute are
	// added now, so the word check and the tests see the whole tree.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	checkArgsEverywhere(root)
	addExitCodesToHelp(root)
	setVersionFlag(root)
	registerCompletions(root, g)
	return root
}
