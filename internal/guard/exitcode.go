package guard

// The exit codes epp-build ends with when one of these errors reaches a
// command (cmd/epp-build's exitCodeDocs says what each means). cmd looks
// them up through CLIExitCode alone, so a new error type brings its code
// with it; not ExitCode, which *exec.ExitError has for a child's status.

// CLIExitCode is 4: refused input: an --out with changes apply did not make.
func (e *LocalChangesError) CLIExitCode() int { return 4 }
