package patchset

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
)

var hunkRange = regexp.MustCompile(`^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@`)

// checkHunkCounts refuses a hunk followed by more hunk lines than its
// header counts: go-gitdiff stops reading at the count and would silently
// drop the rest, where git apply calls the patch corrupt.
func checkHunkCounts(data []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	line := 0
	oldLeft, newLeft := int64(-1), int64(-1)
	header := ""
	for sc.Scan() {
		line++
		l := sc.Text()
		if m := hunkRange.FindStringSubmatch(l); m != nil {
			oldLeft, newLeft = count(m[1]), count(m[2])
			header = m[0]
			continue
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
