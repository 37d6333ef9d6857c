package redact

import (
	"errors"
	"os/exec"
	"strings"
	"unicode/utf8"

	"github.com/epp-build/epp-build/internal/textsafe"
)

// Cause is what a one-line notice about err shows, in at most max
// characters: the outermost error of err's chain whose text fits. Cutting
// the whole text at max would keep what was being done and lose why it
// failed ("git fetch https://...: Get \"https://...\": dial tcp: lookup
// ..."), since a wrapped error names its cause last. A process's exit
// status ("exit status 128") says nothing, so it is never the one shown.
// When no error of the chain fits, the innermost one is shown by its end,
// where the cause is. The text is one line, credentials masked, control
// characters escaped.
func Cause(err error, max int) string {
	var texts []string
	for e := err; e != nil; e = errors.Unwrap(e) {
		if _, ok := e.(*exec.ExitError); ok {
			continue
		}
		if t := oneLine(e.Error()); t != "" {
			texts = append(texts, t)
		}
	}
	if len(texts) == 0 {
		if err == nil {
			return ""
		}
		return oneLine(err.Error())
	}
	for _, t := range texts {
		if utf8.RuneCountInString(t) <= max {
			return t
		}
	}
	r := []rune(texts[len(texts)-1])
	keep := max - 3
	if keep < 1 {
		keep = 1
	}
	return "..." + string(r[len(r)-keep:])
}

// oneLine is s on one line, masked and escaped, as Excerpt shows a body.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(known.mask(strings.ToValidUTF8(s, "\uFFFD"))), " ")
	return Text(textsafe.Escape(s))
}
