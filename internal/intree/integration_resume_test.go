//go:build e2e

package intree

import (
	"bufio"
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// suiteProgress is what the earlier attempts of a suite's run got done
// before its process exited: the tests that passed, and the packages that
// passed whole. The next attempt resumes after them instead of starting
// over. GAIE v1.2.1's harness (and 206d40dca75d's) starts each case's
// ext-proc server on the fixed port 9002 right after stopping the last
// case's, and the stop closes the listener on a goroutine of its own
// (internal/runnable/grpc.go); when that goroutine has not run yet, the
// new server cannot listen and logging.Fatal exits the process. On busy
// cores this happens at the same case boundaries run after run, so a run
// that starts over can lose at the same place every time; a run that
// resumes starts at that case with no server before it.
type suiteProgress struct {
	passed   map[string][]string // import path → tests that passed
	finished map[string]bool     // import paths whose binary passed
}

// add records the tests and packages that passed in one attempt's go test
// -json output.
func (p *suiteProgress) add(out []byte) {
	if p.passed == nil {
		p.passed, p.finished = map[string][]string{}, map[string]bool{}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct{ Action, Package, Test string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Action != "pass" {
			continue
		}
		if ev.Test == "" {
			p.finished[ev.Package] = true
		} else {
			p.passed[ev.Package] = append(p.passed[ev.Package], ev.Test)
		}
	}
}

// tests are the tests that passed in the earlier attempts.
func (p *suiteProgress) tests() []string {
	var all []string
	for _, tests := range p.passed {
		all = append(all, tests...)
	}
	sort.Strings(all)
	return all
}

// skip is the -test.skip pattern for pkg's next attempt: base (the pin's
// known failures, "" for none) or any test that passed before. A test
// that passed is skipped by its full name, one pattern element per level,
// unless its parent passed too (skipping the parent covers it); the
// alternatives are joined with |, which the testing package splits before
// it splits each one at its slashes. The parent of a skipped subtest
// still runs, with the rest of its subtests.
func (p *suiteProgress) skip(pkg, base string) string {
	passed := map[string]bool{}
	for _, name := range p.passed[pkg] {
		passed[name] = true
	}
	var alternatives []string
	for _, name := range p.passed[pkg] {
		if i := strings.LastIndex(name, "/"); i >= 0 && passed[name[:i]] {
			continue
		}
		elems := strings.Split(name, "/")
		for i, e := range elems {
			elems[i] = "^" + regexp.QuoteMeta(e) + "$"
		}
		alternatives = append(alternatives, strings.Join(elems, "/"))
	}
	sort.Strings(alternatives)
	if base != "" {
		alternatives = append([]string{base}, alternatives...)
	}
	return strings.Join(alternatives, "|")
}
