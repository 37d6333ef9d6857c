package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// Mode is how progress is shown: the values of --progress, as buildx names
// them.
type Mode string

const (
	// Auto is Terminal when the output is a terminal that can rewrite a
	// line (TERM is not "dumb"), else Plain.
	Auto  Mode = "auto"
	Plain Mode = "plain"
	// Terminal rewrites one live line in place, even when the output is
	// not a terminal (buildx's tty).
	Terminal Mode = "tty"
	Quiet    Mode = "quiet"
	// RawJSON writes one JSON object a line per progress event, for a
	// program to read.
	RawJSON Mode = "rawjson"
)

// Modes are the values --progress accepts.
var Modes = []string{string(Auto), string(Plain), string(Terminal), string(Quiet), string(RawJSON)}

// EnvVar supplies the mode when --progress is not given, as it does for
// buildx and docker build.
const EnvVar = "BUILDKIT_PROGRESS"

// ModeError is a mode no display knows. Source says where it came from
// (--progress or BUILDKIT_PROGRESS), so the user knows what to fix.
type ModeError struct {
	Value  string
	Source string
}

func (e *ModeError) Error() string {
	src := e.Source
	if src == "" {
		src = "--progress"
	}
	return fmt.Sprintf("%s %q: use %s", src, e.Value, strings.Join(Modes, ", "))
}

// ConflictError is -q with a --progress that is not quiet.
type ConflictError struct{ Progress string }

func (e *ConflictError) Error() string {
	return fmt.Sprintf("-q and --progress %s both given: -q is --progress quiet, choose one", e.Progress)
}

// ParseMode reads a --progress value; "" is Auto.
func ParseMode(s string) (Mode, error) {
	m := Mode(s)
	if m == "" {
		return Auto, nil
	}
	if err := m.Check(); err != nil {
		return "", err
	}
	return m, nil
}

// Check is nil for a mode --progress accepts ("" is Auto), else a
// *ModeError: a stage that takes a Mode from a flag it bound directly
// refuses a bad one with the other bad options, before any work.
func (m Mode) Check() error {
	switch m {
	case "", Auto, Plain, Terminal, Quiet, RawJSON:
		return nil
	}
	return &ModeError{Value: string(m)}
}

// Choice is everything that decides a command's mode.
type Choice struct {
	// Quiet is -q.
	Quiet bool
	// Flag is --progress's value (its default when not given) and FlagSet
	// whether it was given on the command line.
	Flag    string
	FlagSet bool
	// Env is $BUILDKIT_PROGRESS.
	Env string
}

// Mode applies buildx's precedence: -q, then --progress given explicitly,
// then BUILDKIT_PROGRESS, then the flag's default. Errors are the user's
// (*ModeError, *ConflictError).
func (c Choice) Mode() (Mode, error) {
	switch {
	case c.Quiet:
		if c.FlagSet && Mode(c.Flag) != Quiet {
			return "", &ConflictError{Progress: c.Flag}
		}
		return Quiet, nil
	case c.FlagSet:
		return ParseMode(c.Flag)
	case c.Env != "":
		m, err := ParseMode(c.Env)
		if err != nil {
			return "", &ModeError{Value: c.Env, Source: EnvVar}
		}
		return m, nil
	}
	return ParseMode(c.Flag)
}

// Resolve turns Auto into what out can show: Terminal on a terminal whose
// TERM can rewrite a line and without NO_COLOR, else Plain. Other modes are kept, so a forced
// tty stays live.
func Resolve(mode Mode, out io.Writer) Mode {
	if mode != Auto && mode != "" {
		return mode
	}
	_, noColor := os.LookupEnv("NO_COLOR")
	return resolveAuto(IsTerminal(out), os.Getenv("TERM"), noColor)
}

// resolveAuto is Auto's choice: a dumb terminal cannot move the cursor, so
// it gets the lines a log gets; NO_COLOR asks for output without terminal
// effects, and a line rewritten in place is one (no-color.org: any value).
func resolveAuto(terminal bool, term string, noColor bool) Mode {
	if terminal && term != "dumb" && !noColor {
		return Terminal
	}
	return Plain
}
