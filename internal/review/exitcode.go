package review

// The exit codes of review's errors, as cmd/epp-build's exit-code table
// documents them.

// CLIExitCode is 2: usage.
func (e *UsageError) CLIExitCode() int { return 2 }

// CLIExitCode is 4 when lint found a recipe it refuses, else 5 when a pin
// does not verify, else 7: the worst finding decides.
func (e *LintError) CLIExitCode() int {
	switch {
	case e.Refused > 0:
		return 4
	case e.Mismatches > 0:
		return 5
	}
	return 7
}
