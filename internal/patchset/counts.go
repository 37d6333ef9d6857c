package patchset

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var hunkRange = regexp.MustCompile(`^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@`)

// checkHunkCounts refuses a hunk followed by more hunk lines than its
// header counts: go-gitdiff stops reading at the count and would silently
// drop the rest, where git apply calls the patch corrupt.
func checkHunkCounts(text string) error {
	line := 0
	oldLeft, newLeft := int64(-1), int64(-1)
	header := ""
	for len(text) > 0 {
		line++
		l := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		l = strings.TrimSuffix(l, "\r")
		if strings.HasPrefix(l, "@@ ") {
			if m := hunkRange.FindStringSubmatch(l); m != nil {
				oldLeft, newLeft = count(m[1]), count(m[2])
				header = m[0]
				continue
			}
		}
		if oldLeft < 0 {
			continue
		}
		if oldLeft == 0 && newLeft == 0 {
			oldLeft, newLeft = -1, -1
			if len(l) > 0 && (l[0] == ' ' || l[0] == '+' || (l[0] == '-' && l != "-- ")) {
				return fmt.Errorf("line %d: hunk %s has more lines than its header counts", line, header)
			}
			continue
		}
		switch {
		case l == "" || l[0] == ' ':
			oldLeft--
			newLeft--
		case l[0] == '-':
			oldLeft--
		case l[0] == '+':
			newLeft--
		}
	}
	return nil
}

func count(s string) int64 {
	if s == "" {
		return 1
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
