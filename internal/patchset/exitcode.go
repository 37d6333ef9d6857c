package patchset

// The exit codes epp-build ends with when one of these errors reaches a
// command (cmd/epp-build's exitCodeDocs says what each means). cmd looks
// them up through CLIExitCode alone, so a new error type brings its code
// with it; not ExitCode, which *exec.ExitError has for a child's status.

// CLIExitCode is 3: a patch does not apply.
func (e *ConflictError) CLIExitCode() int { return 3 }

// CLIExitCode is 3: a patch does not apply: a missing or existing file.
func (e *FileError) CLIExitCode() int { return 3 }

// CLIExitCode is 4: refused input: an unreadable patch.
func (e *ParseError) CLIExitCode() int { return 4 }

// CLIExitCode is 4: refused input: a hostile patch.
func (e *UnsafeError) CLIExitCode() int { return 4 }

// CLIExitCode is 4: refused input: an --out apply did not make.
func (e *ExistingTreeError) CLIExitCode() int { return 4 }

// CLIExitCode is 4: refused input: an --out with untracked files in the way.
func (e *UntrackedInTheWayError) CLIExitCode() int { return 4 }
