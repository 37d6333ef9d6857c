package vulns

import "github.com/epp-build/epp-build/internal/recipe"

// ParseStream classifies a govulncheck JSON stream as Scan does, for the
// test that compares Scan with the govulncheck command.
func ParseStream(stream []byte) ([]Finding, error) {
	_, fs, err := parseStream(stream)
	return fs, err
}

// Suppress marks fs as Scan does with the --vex document at path.
func Suppress(path string, fs []Finding) error {
	doc, err := readVEX(path)
	if err != nil {
		return err
	}
	doc.suppress(fs)
	return nil
}

// GoVersion is the name Scan gives a version of module.
func GoVersion(module, v string) string { return moduleVersion(module, v) }

// WorkEnv is the environment Scan gives the scanner for the tree in dir.
func WorkEnv(dir string, env []string) []string { return withoutBrokenWorkspace(dir, env) }

// LineEnv is the environment Scan gives the scanner for the line r.
func LineEnv(r *recipe.Recipe, env []string) []string { return lineEnv(r, env) }
