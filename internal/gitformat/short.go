package gitformat

// ShortLen is how many characters of a commit or digest epp-build shows:
// git's --short=12, unique in any repository this tool meets.
const ShortLen = 12

// Short is the ShortLen-character form of a commit, a hash or a digest;
// a shorter string is returned whole.
func Short(s string) string {
	if len(s) > ShortLen {
		return s[:ShortLen]
	}
	return s
}
