package pipeline

// The exit codes epp-build ends with when one of these errors reaches a
// command (cmd/epp-build's exitCodeDocs says what each means). cmd looks
// them up through CLIExitCode alone, so a new error type brings its code
// with it; not ExitCode, which *exec.ExitError has for a child's status.

// CLIExitCode is 2: usage: bad flags, found before anything is fetched.
func (e *OptionsError) CLIExitCode() int { return 2 }

// CLIExitCode is 8: something the build needs outside this machine is missing.
func (e *PreflightError) CLIExitCode() int { return 8 }
