package build

import (
	"strconv"
	"time"
)

func itoa(i int) string { return strconv.Itoa(i) }

// fastRetry keeps fault tests short: the retry logic is the same, only the
// delays shrink.
func fastRetry(o Options) Options {
	o.retryBackoff = 50 * time.Millisecond
	return o
}
