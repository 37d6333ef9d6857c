package source

// The exit codes epp-build ends with when one of these errors reaches a
// command (cmd/epp-build's exitCodeDocs says what each means). cmd looks
// them up through CLIExitCode alone, so a new error type brings its code
// with it; not ExitCode, which *exec.ExitError has for a child's status.

// CLIExitCode is 5: verification failed: a commit or tag mismatch.
func (e *MismatchError) CLIExitCode() int { return 5 }

// CLIExitCode is 5: verification failed: a module hash mismatch.
func (e *ModuleHashError) CLIExitCode() int { return 5 }
