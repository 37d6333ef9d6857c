package attest

// The exit codes epp-build ends with when one of these errors reaches a
// command (cmd/epp-build's exitCodeDocs says what each means). cmd looks
// them up through CLIExitCode alone, so a new error type brings its code
// with it; not ExitCode, which *exec.ExitError has for a child's status.

// CLIExitCode is 5: verification failed: a missing or mismatched attestation.
func (e *VerifyError) CLIExitCode() int { return 5 }

// CLIExitCode is 2: usage: a key flag that names no usable key.
func (e *KeyError) CLIExitCode() int { return 2 }

// CLIExitCode is 2: usage: an image reference that does not parse.
func (e *ReferenceError) CLIExitCode() int { return 2 }

// CLIExitCode is 9: no such image.
func (e *NoSuchImageError) CLIExitCode() int { return 9 }
