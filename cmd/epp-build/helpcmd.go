package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// exitCodesTopic is the help topic that is not a command.
const exitCodesTopic = "exit-codes"

// newHelpCommand replaces cobra's help command, which prints the root's
// usage and exits 0 for a topic it does not know: here an unknown topic
// is a usage error like any unknown command, and `help exit-codes` is
// the one place every exit code is listed.
func newHelpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND... | " + exitCodesTopic + "]",
		Short: "Help about a command, or every exit code (help " + exitCodesTopic + ")",
		Long: `help prints a command's help (the same as COMMAND --help), or with
` + exitCodesTopic + ` every exit code epp-build returns and what it means.`,
		Example: `  epp-build help apply
  epp-build help series drop
  epp-build help exit-codes`,
		Args: cobra.ArbitraryArgs,
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			parent, _, err := root.Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			if len(args) == 0 {
				names = append(names, exitCodesTopic)
			}
			for _, c := range parent.Commands() {
				if c.IsAvailableCommand() || c.Name() == "help" {
					names = append(names, c.Name())
				}
			}
			var out []string
			for _, n := range names {
				if strings.HasPrefix(n, toComplete) {
					out = append(out, n)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && args[0] == exitCodesTopic {
				_, err := fmt.Fprint(cmd.OutOrStdout(), allExitCodes())
				return err
			}
			target, rest, err := root.Find(args)
			if err != nil {
				return usageError{err}
			}
			if len(rest) > 0 {
				if !target.HasParent() && len(args) == 1 {
					if s := suggestTopic(root, args[0]); s != "" {
						return usageError{fmt.Errorf("unknown help topic %q; did you mean %q?", args[0], s)}
					}
				}
				return usageError{fmt.Errorf("unknown help topic %q; see `epp-build help` for the commands, or `epp-build help %s`", strings.Join(args, " "), exitCodesTopic)}
			}
			return target.Help()
		},
	}
}

// suggestTopic is the command or topic closest to a misspelt one.
func suggestTopic(root *cobra.Command, word string) string {
	if s := root.SuggestionsFor(word); len(s) > 0 {
		return s[0]
	}
	if editDistance(word, exitCodesTopic) <= 2 {
		return exitCodesTopic
	}
	return ""
}
