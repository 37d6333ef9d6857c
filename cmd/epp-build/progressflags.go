package main

import (
	"os"

	"github.com/epp-build/epp-build/internal/progress"
	"github.com/spf13/cobra"
)

// progressFlags are --progress and -q/--quiet, the same on every command
// that shows progress, read as buildx reads them (BUILDKIT_PROGRESS when
// --progress is not given).
type progressFlags struct {
	value string
	quiet bool
	// given is whether --progress was on the command line; nil on a
	// command without the flag, whose mode then comes from the env.
	given func() bool
}

// register adds the flags to cmd; what says what the progress is of.
func (p *progressFlags) register(cmd *cobra.Command, what string) {
	// The env is the flag's default, as buildx has it: help shows what
	// applies, and code reading the flag's value (the recipe-set notice's
	// quiet) sees the mode in effect.
	def := string(progress.Auto)
	if env := os.Getenv(progress.EnvVar); env != "" {
		def = env
	}
	cmd.Flags().StringVar(&p.value, "progress", def, what+": auto (a live line on a terminal, else plain lines), plain, tty (live even when not a terminal), quiet or rawjson (one JSON object a line); $"+progress.EnvVar+" when not given")
	cmd.Flags().BoolVarP(&p.quiet, "quiet", "q", false, "no progress: the same as --progress quiet (notices still show)")
	p.given = func() bool { return cmd.Flags().Changed("progress") }
}

// mode is the chosen mode; a bad value or -q with another --progress is
// a usage error.
func (p *progressFlags) mode() (progress.Mode, error) {
	c := progress.Choice{Quiet: p.quiet, Flag: p.value, Env: os.Getenv(progress.EnvVar)}
	if p.given != nil {
		c.FlagSet = p.given()
	}
	m, err := c.Mode()
	if err != nil {
		return "", usageError{err}
	}
	return m, nil
}
