package backport

import (
	"strings"

	"github.com/epp-build/epp-build/internal/review"
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
	prose := body
	if len(review.Trailers(body)) > 0 {
		prose = ""
		if i := strings.LastIndex(body, "\n\n"); i >= 0 {
			prose = body[:i]
		}
	}
	if strings.TrimSpace(prose) != "" {
		return body
	}
	if body == "" {
		return reason
	}
	return reason + "\n\n" + body
}
