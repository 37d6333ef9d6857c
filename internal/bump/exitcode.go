package bump

// The exit codes epp-build ends with when one of these errors reaches a
// command (cmd/epp-build's exitCodeDocs says what each means). cmd looks
// them up through CLIExitCode alone, so a new error type brings its code
// with it; not ExitCode, which *exec.ExitError has for a child's status.
// A bump whose tree does not compile ends with typecheck.Error's 6.

// CLIExitCode is 2: usage: a module, version, id or toolchain refused.
func (e *UsageError) CLIExitCode() int { return 2 }

// CLIExitCode is 2: usage: MODULE@VERSION does not raise a module the
// line requires (known once the line is applied).
func (e *NotARaiseError) CLIExitCode() int { return 2 }
