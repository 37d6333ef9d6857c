package vulns

// ParseStream classifies a govulncheck JSON stream as Scan does, for the
// test that compares Scan with the govulncheck command.
func ParseStream(stream []byte) ([]Finding, error) {
	_, fs, err := parseStream(stream)
	return fs, err
}
