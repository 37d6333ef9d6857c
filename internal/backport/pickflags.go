package backport

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// trailerFlags refuses a --reason or --upstream-link that is not one line
// of text: each becomes one trailer line, and a newline in it would write
// a second trailer (another Upstream:) the user never gave as a flag.
func trailerFlags(opt PickOptions) error {
	for _, f := range []struct{ name, value string }{{"--reason", opt.Reason}, {"--upstream-link", opt.Upstream}} {
		if !utf8.ValidString(f.value) {
			return &UsageError{fmt.Errorf("%s %q is not UTF-8 text", f.name, f.value)}
		}
		if strings.IndexFunc(f.value, isControl) >= 0 {
			return &UsageError{fmt.Errorf("%s %q has a newline or another control character: it is one trailer line (say more in the body with series reword --body)", f.name, f.value)}
		}
	}
	return nil
}

// git reads a patch's Date: with dates from 1970 through 2099 only
// (date.c tm_to_time_t); a date outside would be recorded as another.
var (
	earliestDate = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	latestDate   = time.Date(2099, 12, 31, 23, 59, 59, 0, time.UTC)
)

// dateInRange refuses a --date git would not keep as given.
func dateInRange(t time.Time) error {
	if t.Before(earliestDate) || t.After(latestDate) {
		return fmt.Errorf("%s is outside the dates git keeps (%s to %s)", t.UTC().Format(time.RFC3339), earliestDate.Format(time.RFC3339), latestDate.Format(time.RFC3339))
	}
	return nil
}
