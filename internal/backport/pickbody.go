package backport

import (
	"strings"

	"github.com/epp-build/epp-build/internal/trailer"
)

// withReasonBody gives a pick whose message is only a subject (and
// trailers) the --reason as its body, so the patch says why it exists in
// prose as lint asks, not only in the Reason: trailer.
func withReasonBody(body, reason string) string {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return body
	}
	body = strings.Trim(body, "\n")
	if strings.TrimSpace(trailer.Prose(body)) != "" {
		return body
	}
	if body == "" {
		return reason
	}
	return reason + "\n\n" + body
}
