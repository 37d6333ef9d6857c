package main

import (
	"errors"
	"io"

	"github.com/epp-build/epp-build/internal/bundled"
	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/status"
	"github.com/spf13/cobra"
)

func newStatusCommand(g *globalFlags) *cobra.Command {
	var output outfmt.Format
	var dir string
	var outs []string
	cmd := &cobra.Command{
		Use:   "status [--out DIR]... [--dir DIR]",
		Short: "Say what is in progress and what is out of date: a stopped rebase or pick, applied trees, stale recipes",
		Long: `status reports, without fetching anything:

  - the rebase in progress for --patches (in its default work tree, or the --dir it
    was started with, which the rebase records), where it stopped (a conflict or a
    failed --exec command) and the commands that go on from there.
  - the pick stopped at a conflict for --patches (in its default work tree; a pick
    started with --dir is shown by status --dir DIR): the version, the pick it
    stopped at, the files marked, and the commands that go on (pick --continue,
    --skip or --abort).
  - for each --out DIR, whether that applied tree is current for its version's
    recipe: current only when its series is the recipe's and HEAD, the index and
    the work tree are as apply left them. Otherwise it names what differs: changed
    patches, modified files, untracked files where the recipe's patches write (a
    re-apply refuses them), a moved HEAD and the commits apply did not make, a
    re-apply interrupted half way, with the commands that make it current.
  - which recipes are stale against plugins/ and ffi/: the files their generated
    patches add differ from the source folders (regen would rewrite them). A
    generated file a patch edits instead of adding is listed as not comparable;
    ` + "`epp-build check`" + ` tells.`,
		Example: `  epp-build status
  epp-build status --out ./gaie
  epp-build status --dir ./pick
  epp-build status -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output == outfmt.Markdown {
				return usageError{errors.New("status prints text or json (-o json)")}
			}
			req := status.Request{Root: g.patches, Dir: dir, Outs: outs}
			if g.set != nil && g.set.Kind == bundled.BuiltIn {
				req.BuiltIn = g.set.String()
			}
			rep, err := status.Gather(req)
			if err != nil {
				return err
			}
			return render(cmd, output, rep, nil, func(w io.Writer) error { status.WriteText(w, rep); return nil })
		},
	}
	outputFlag(cmd, &output)
	cmd.Flags().StringArrayVar(&outs, "out", nil, "an applied tree to check against its recipe (repeatable)")
	cmd.Flags().StringVar(&dir, "dir", "", "the rebase or pick work tree to look at (default: the ones in progress for --patches)")
	return cmd
}
