package backport

// The exit codes epp-build ends with when one of these errors reaches a
// command (cmd/epp-build's exitCodeDocs says what each means). cmd looks
// them up through CLIExitCode alone, so a new error type brings its code
// with it; not ExitCode, which *exec.ExitError has for a child's status.

// CLIExitCode is 6: rebase or pick stopped at a conflict.
func (e *ConflictStop) CLIExitCode() int { return 6 }

// CLIExitCode is 6: rebase stopped at a failed --exec command.
func (e *ExecStop) CLIExitCode() int { return 6 }

// CLIExitCode is 2: usage.
func (e *UsageError) CLIExitCode() int { return 2 }

// CLIExitCode is 4: refused input: an edited rebase or pick state file.
func (e *StateError) CLIExitCode() int { return 4 }
