package seriesedit

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/epp-build/epp-build/internal/patchset"
)

// checkMessage refuses a new subject or body that would not come back
// from the patch file as written: the same text pick refuses in a commit
// message (a diff, an in-body header, a line where git am ends the
// message), text that is not UTF-8 (the patch says charset=UTF-8), and a
// control character in the subject, which is a mail header line.
func checkMessage(patch string, m Message) error {
	refuse := func(format string, a ...any) error {
		return &patchset.ParseError{Patch: patch, Err: fmt.Errorf("the new "+format+"; refused", a...)}
	}
	subject := strings.TrimSpace(m.Subject)
	if !utf8.ValidString(subject) {
		return refuse("subject %q is not UTF-8", subject)
	}
	if strings.IndexFunc(subject, isControl) >= 0 {
		return refuse("subject %q has a control character", subject)
	}
	body := strings.TrimSpace(m.Body)
	if !utf8.ValidString(body) {
		return refuse("body is not UTF-8")
	}
	if i := strings.IndexFunc(body, func(r rune) bool { return r != '\n' && r != '\t' && isControl(r) }); i >= 0 {
		return refuse("body line %d has a control character", strings.Count(body[:i], "\n")+1)
	}
	if line, text, why := patchset.MessageHazard(subject); line > 0 {
		return refuse("subject %q %s", text, why)
	}
	// The body is checked as it will stand: after a subject and a blank
	// line, where git am looks for in-body headers.
	if line, text, why := patchset.MessageHazard("subject\n\n" + body); line > 2 {
		return refuse("body line %d %q %s", line-2, text, why)
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }
