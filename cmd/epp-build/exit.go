package main

import (
	"context"
	"errors"
)

// usageError marks a mistake in how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// CLIExitCode is 2: usage.
func (usageError) CLIExitCode() int { return 2 }

// exitCoder is an error that knows which exit code exitCodeDocs gives it.
// Stage packages declare theirs beside their error types (exitcode.go),
// so cmd holds no list of them. The method is not ExitCode: a wrapped
// *exec.ExitError has that, for a child process's status.
type exitCoder interface{ CLIExitCode() int }

// exitCode is the one place errors become exit codes: 130 for an
// interrupt, else the code of the first error in err's chain (outermost
// first, as errors.As walks it) that has one, else 1.
func exitCode(ctx context.Context, err error) int {
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return 130
	}
	var c exitCoder
	if errors.As(err, &c) {
		return c.CLIExitCode()
	}
	return 1
}
