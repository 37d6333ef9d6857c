package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is the part of a `go test -json` record the summary needs.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// outcome of one test (or subtest) in one package.
type outcome struct {
	pkg, test, action string
	// output holds what the test printed, for the skip reason.
	output []string
}

// summary counts test outcomes over any number of `go test -json` streams.
// A test is counted once, by its last pass/fail/skip event, so a stream
// that repeats a package (a rerun) does not double-count.
type summary struct {
	order   []string
	results map[string]*outcome
	// buildFailures are packages that failed without a failing test: a
	// compile error or a panic in TestMain.
	buildFailures []string
}

func newSummary() *summary { return &summary{results: map[string]*outcome{}} }

// read consumes one stream; lines that are not JSON (a build error printed
// outside the stream) are ignored, as `go test -json` may emit them.
func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	failedTests := map[string]bool{}
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Package == "" {
			continue
		}
		if e.Test == "" {
			if e.Action == "fail" && !failedTests[e.Package] {
				s.buildFailures = append(s.buildFailures, e.Package)
			}
			continue
		}
		key := e.Package + "\x00" + e.Test
		o := s.results[key]
		if o == nil {
			o = &outcome{pkg: e.Package, test: e.Test}
			s.results[key] = o
			s.order = append(s.order, key)
		}
		switch e.Action {
		case "output":
			o.output = append(o.output, e.Output)
		case "pass", "fail", "skip":
			o.action = e.Action
			if e.Action == "fail" {
				failedTests[e.Package] = true
			}
		}
	}
	return sc.Err()
}

// counts returns passed, failed and skipped tests. A parent test whose
// subtests all ran is counted like any other test: each is a check that
// passed or failed.
func (s *summary) counts() (passed, failed, skipped int) {
	for _, o := range s.results {
		switch o.action {
		case "pass":
			passed++
		case "fail":
			failed++
		case "skip":
			skipped++
		}
	}
	return passed, failed + len(s.buildFailures), skipped
}

// skips lists each skipped test with the reason it printed.
func (s *summary) skips() []string {
	var lines []string
	for _, key := range s.order {
		o := s.results[key]
		if o.action != "skip" {
			continue
		}
		lines = append(lines, fmt.Sprintf("%s %s: %s", o.pkg, o.test, skipReason(o.output)))
	}
	sort.Strings(lines)
	return lines
}

// skipReason is what the test logged through t.Skip, without go test's
// framing lines ("=== RUN", "--- SKIP") and file:line prefixes.
func skipReason(output []string) string {
	var parts []string
	for _, line := range output {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- ") {
			continue
		}
		if i := strings.Index(line, ": "); i > 0 && strings.Contains(line[:i], ".go:") {
			line = line[i+2:]
		}
		parts = append(parts, line)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}
