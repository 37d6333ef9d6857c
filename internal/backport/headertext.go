package backport

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/epp-build/epp-build/internal/patchset"
)

// plainText refuses a header value with a control character: a newline
// in it would end the header line it is written on and start another.
func plainText(where, field, value string) error {
	if strings.IndexFunc(value, isControl) >= 0 {
		return &patchset.ParseError{Patch: where, Err: fmt.Errorf("%s %q has a control character; refused", field, value)}
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// identityText refuses an author whose name or email has a control
// character, wherever it comes from: it would be written into a header
// line of the series.
func identityText(where string, who object.Signature) error {
	if err := plainText(where, "author name", who.Name); err != nil {
		return err
	}
	return plainText(where, "author email", who.Email)
}

// messageText refuses a commit message that would not stay message text
// in the patch file written for it. Refused rather than quoted: quoting
// would change the message the pick promises to keep as written, and a
// message from an untrusted repository that carries a diff or another
// author wants a person's look, not a silent rewrite.
func messageText(where, msg string) error {
	if line, text, why := patchset.MessageHazard(msg); line > 0 {
		return &patchset.ParseError{Patch: where, Err: fmt.Errorf("message line %d %q %s when the pick is applied (git am reads it so too); refused", line, text, why)}
	}
	return nil
}
