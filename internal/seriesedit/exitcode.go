package seriesedit

// The exit codes epp-build ends with when one of these errors reaches a
// command (cmd/epp-build's exitCodeDocs says what each means). cmd looks
// them up through CLIExitCode alone, so a new error type brings its code
// with it; not ExitCode, which *exec.ExitError has for a child's status.

// CLIExitCode is 2: usage: patches or positions the series does not have.
func (e *UsageError) CLIExitCode() int { return 2 }
