package patchset

import (
	"regexp"
	"strings"
)

// patchStart is a line from which git am, or our parser, reads the rest
// of a mail as the patch: a git or traditional diff header, or Index:.
var patchStart = regexp.MustCompile(`^(diff -|Index: )`)

// patchBreak is a line at which git am (mailinfo) ends the message and
// our parser starts the appendix: "---" alone or followed by a space.
// git format-patch writes such a body line as it is, so the commit that
// comes back from the patch has lost it and all that follows.
var patchBreak = regexp.MustCompile(`^---(\s|$)`)

// MessageHazard finds the first line of a commit message that would not
// stay message text once the message is written into a patch file: a
// line that starts a diff, which would be applied as file changes, or an
// in-body From:, Subject: or Date: at the top of the body, which would
// replace the commit's author, subject or date, or a "---" line, where
// git am ends the message. line is 1-based; 0 when the message is safe.
func MessageHazard(msg string) (line int, text, why string) {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		if patchStart.MatchString(l) || (strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ")) {
			return i + 1, l, "starts a diff, which would be applied as file changes"
		}
	}
	for i, l := range lines {
		if patchBreak.MatchString(l) {
			return i + 1, l, "ends the message where git am reads the patch, so it and all after it would be lost (write it as ----- or indent it)"
		}
	}
	// The body is what follows the subject's paragraph; its first
	// non-blank line is where git am looks for in-body headers.
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
		i++
	}
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i < len(lines) && inBodyHeader.MatchString(lines[i]) {
		return i + 1, lines[i], "is an in-body header, which would replace the commit's author, subject or date"
	}
	return 0, "", ""
}
