package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/seriesedit"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// newSeriesCommand groups the series edits (StGit's and quilt's stack
// commands for a version's patches); bare, it lists the stack, as quilt's
// series does.
func newSeriesCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "series --version V | series list --version V | series (reword|drop|move|squash) ...",
		Short: "List a version's series, or edit it: reword, drop, move or squash patches",
		Long: `series --version V (or series list --version V) lists the version's stack as quilt's
series does: every patch in the order it applies, its number and its subject. The
numbers are the ones the edits take (series drop --version V 2 drops the patch listed
as 2); patches the version inherits with extends come first, marked "-" with the
version they come from, since they are edited there.

series edits a version's own patches as StGit or quilt edit a stack. Each edit
replays the series on its upstream pin in a temporary folder, in the new order, and
writes the exported series back into the version folder (patch files, the recipe's
patches list, generated entries renamed with their patch), so ` + "`check`" + ` passes after
it. A patch is named by its file name, its number among the version's own patches (3
or 0003), or a file name prefix; patches a version inherits with extends are edited in
the version that has them. An order that does not apply is refused (exit 3) and
nothing is written.`,
		Example: `  epp-build series --version v1.4.3
  epp-build series list --version v1.4.3 -o json
  epp-build series reword --version v1.4.3 1 --body "GAIE's stream close races the EPP's."
  epp-build series drop --version v1.4.3 0002
  epp-build series move --version v1.4.3 0003 --to 1
  epp-build series squash --version v1.4.3 1 2 3`,
		Args: usageArgs(cobra.NoArgs),
	}
	seriesListFlags(cmd, g)
	list := &cobra.Command{
		Use:   "list --version V",
		Short: "List a version's stack: each patch with the number the edits take, inherited ones marked",
		Long: `list prints the version's series in the order it applies: one line per patch, with
its number among the version's own patches (the N that reword, drop, move and
squash take) and its subject. Patches inherited with extends are marked "-" and
name the version they come from; edit them there. -o json prints an array.`,
		Example: `  epp-build series list --version v1.4.3
  epp-build series list --version v1.4.3 -o json`,
		Args: usageArgs(cobra.NoArgs),
	}
	seriesListFlags(list, g)
	cmd.AddCommand(list, newSeriesRewordCommand(g), newSeriesDropCommand(g), newSeriesMoveCommand(g), newSeriesSquashCommand(g))
	return cmd
}

// seriesListFlags makes cmd list the stack: bare series, and series list.
func seriesListFlags(cmd *cobra.Command, g *globalFlags) {
	var f recipeFlags
	var output outfmt.Format
	cmd.Flags().StringVar(&f.version, "version", "", "the version whose series to list: a `VERSION` folder under --patches (list them with: epp-build versions)")
	cmd.Flags().StringVar(&f.dir, "recipe", "", "a recipe folder to list instead of --version")
	outputFlag(cmd, &output)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if f.version == "" && f.dir == "" {
			return usageError{fmt.Errorf("%s: --version V is required: the version whose series to list (list the versions with: epp-build versions)", commandPath(cmd))}
		}
		r, err := f.load(g)
		if err != nil {
			return err
		}
		items, err := seriesedit.List(r)
		if err != nil {
			return err
		}
		return render(cmd, output, items, func(w io.Writer) error { return seriesedit.WriteListMarkdown(w, items) },
			func(w io.Writer) error { return seriesedit.WriteList(w, r.Version, items) })
	}
}

// seriesEdit loads the recipe and runs one edit with the apply stage
// wired in, then prints what changed.
func seriesEdit(cmd *cobra.Command, g *globalFlags, f *recipeFlags, edit func(context.Context, *recipe.Recipe, patchset.Applier) (*seriesedit.Edited, error)) error {
	r, err := f.load(g)
	if err != nil {
		return err
	}
	res, err := edit(cmd.Context(), r, applier(f, cmd))
	if err != nil {
		return err
	}
	writeEdited(cmd.OutOrStdout(), res)
	return nil
}

func writeEdited(w io.Writer, e *seriesedit.Edited) {
	fmt.Fprintf(w, "%s: %d patches\n", e.Version, len(e.After))
	for i, n := range e.After {
		fmt.Fprintf(w, "  %d. %s\n", i+1, textsafe.Escape(n))
	}
	for _, g := range e.Dropped {
		fmt.Fprintf(w, "generated folder %s left out of the recipe: its patch %s is no longer in the series\n", textsafe.Escape(g.To), textsafe.Escape(g.Patch))
	}
}

// messageFlags are reword's and squash's --subject, --body and --body-file.
type messageFlags struct {
	msg      seriesedit.Message
	bodyFile string
}

func (m *messageFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&m.msg.Subject, "subject", "", "the new subject line")
	cmd.Flags().StringVar(&m.msg.Body, "body", "", "the new body: the prose above the trailers, which stay")
	cmd.Flags().StringVar(&m.bodyFile, "body-file", "", "read the new body from this file (- for stdin)")
}

func (m *messageFlags) message(cmd *cobra.Command) (seriesedit.Message, error) {
	if m.bodyFile == "" {
		return m.msg, nil
	}
	if m.msg.Body != "" {
		return m.msg, usageError{fmt.Errorf("--body and --body-file both given: choose one")}
	}
	var data []byte
	var err error
	if m.bodyFile == "-" {
		data, err = io.ReadAll(inputfile.LimitReader(cmd.InOrStdin(), "the standard input", inputfile.MessageLimit()))
	} else {
		data, err = inputfile.ReadFile(m.bodyFile, "", inputfile.MessageLimit())
	}
	if refused := (*inputfile.Error)(nil); errors.As(err, &refused) {
		return m.msg, fmt.Errorf("--body-file: %w", err)
	}
	if err != nil {
		return m.msg, usageError{fmt.Errorf("--body-file: %w", err)}
	}
	msg := m.msg
	msg.Body = string(data)
	return msg, nil
}

func newSeriesRewordCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var m messageFlags
	cmd := &cobra.Command{
		Use:   "reword --version V PATCH (--subject S | --body B | --body-file F)",
		Short: "Give a patch a new subject or body, keeping its trailers, author and change",
		Long: `reword replaces a patch's subject, or the prose of its body (the text above the
Upstream:, Reason: and other trailers, which stay), and re-exports the series: a
patch whose subject changes gets the file name format-patch would give it.`,
		Example: `  epp-build series reword --version v1.4.3 0002-Fix-stream-close.patch \
      --body "Upstream closes the stream before the EPP's response hook runs."
  epp-build series reword --version v1.4.3 2 --subject "epp: close the stream after the response hook"`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			msg, err := m.message(cmd)
			if err != nil {
				return err
			}
			return seriesEdit(cmd, g, &f, func(ctx context.Context, r *recipe.Recipe, a patchset.Applier) (*seriesedit.Edited, error) {
				return seriesedit.Reword(ctx, r, a, args[0], msg)
			})
		},
	}
	f.register(cmd)
	f.registerProgress(cmd)
	m.register(cmd)
	return cmd
}

func newSeriesDropCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	cmd := &cobra.Command{
		Use:   "drop --version V PATCH...",
		Short: "Remove patches from the series (the later ones must still apply)",
		Long: `drop removes patches from the version's series and re-exports the rest; a generated
entry whose patch is dropped leaves the recipe, and the command says so.`,
		Example: `  epp-build series drop --version v1.4.3 0002
  epp-build series drop --version v1.4.3 0002-Fix-stream-close.patch 0004`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return seriesEdit(cmd, g, &f, func(ctx context.Context, r *recipe.Recipe, a patchset.Applier) (*seriesedit.Edited, error) {
				return seriesedit.Drop(ctx, r, a, args)
			})
		},
	}
	f.register(cmd)
	f.registerProgress(cmd)
	return cmd
}

func newSeriesMoveCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var to int
	cmd := &cobra.Command{
		Use:   "move --version V PATCH --to N",
		Short: "Move a patch to position N of the series (1 = first of the version's own)",
		Long: `move puts a patch at position N among the version's own patches and re-exports the
series; patches that change place are renumbered. An order in which a patch no
longer applies is refused (exit 3) and nothing is written.`,
		Example: `  epp-build series move --version v1.4.3 0003 --to 1`,
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("to") {
				return usageError{fmt.Errorf("move: --to N is required")}
			}
			return seriesEdit(cmd, g, &f, func(ctx context.Context, r *recipe.Recipe, a patchset.Applier) (*seriesedit.Edited, error) {
				return seriesedit.Move(ctx, r, a, args[0], to)
			})
		},
	}
	f.register(cmd)
	f.registerProgress(cmd)
	cmd.Flags().IntVar(&to, "to", 0, "the new position, 1-based among the version's own patches")
	return cmd
}

func newSeriesSquashCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var m messageFlags
	cmd := &cobra.Command{
		Use:   "squash --version V TARGET PATCH...",
		Short: "Fold patches into TARGET: one patch with all their changes and trailers",
		Long: `squash folds the named patches into TARGET: one patch at TARGET's place with
TARGET's author, date and message (or --subject / --body), the trailers of every
folded patch, and all their changes, applied in series order. Generated entries of
the folded patches move to the squashed one.`,
		Example: `  epp-build series squash --version v1.4.3 1 2 3
  epp-build series squash --version v1.4.3 0001 0004 --subject "dynamo: the KV router and its config"`,
		Args: usageArgs(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			msg, err := m.message(cmd)
			if err != nil {
				return err
			}
			return seriesEdit(cmd, g, &f, func(ctx context.Context, r *recipe.Recipe, a patchset.Applier) (*seriesedit.Edited, error) {
				return seriesedit.Squash(ctx, r, a, args[0], args[1:], msg)
			})
		},
	}
	f.register(cmd)
	f.registerProgress(cmd)
	m.register(cmd)
	return cmd
}
