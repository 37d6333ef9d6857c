package vulns

// The exit codes epp-build ends with when one of these errors reaches a
// command (cmd/epp-build's exitCodeDocs says what each means). cmd looks
// them up through CLIExitCode alone, so a new error type brings its code
// with it; not ExitCode, which *exec.ExitError has for a child's status.

// CLIExitCode is 10: a scanned line calls a vulnerable function.
func (e *CalledError) CLIExitCode() int { return 10 }

// CLIExitCode is 4: refused input: a --vex file.
func (e *VEXError) CLIExitCode() int { return 4 }

// CLIExitCode is 10, as for vulns: the build's scan found what its
// --vulns threshold refuses, and nothing was pushed.
func (e *GateError) CLIExitCode() int { return 10 }
