package recipe

import (
	"regexp"
	"strings"

	"github.com/epp-build/epp-build/internal/gitformat"
)

// A description names the upstream it stands on in free text ("Dynamo
// v1.4.2 EPP on GAIE 7c1f1994dbff"). The pin mentions read here are the
// ones a reader takes for the upstream pin: a version or commit right
// after the word GAIE, and any abbreviated or full commit hash (which may
// also be a Dynamo commit: those are checked against the capi and
// reproduces pins).
var (
	afterGAIE = regexp.MustCompile(`\bGAIE\s+(v?[0-9](?:[0-9A-Za-z.+-]*[0-9A-Za-z])?|[0-9a-f]{7,40})\b`)
	hexToken  = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
)

// PinMention is one place a description names a pin.
type PinMention struct {
	Text       string
	Start, End int
	// AfterGAIE is a mention that can only be the upstream pin.
	AfterGAIE bool
}

// PinMentions lists where desc names a pin, in order, each once.
func PinMentions(desc string) []PinMention {
	var out []PinMention
	seen := map[int]bool{}
	for _, m := range afterGAIE.FindAllStringSubmatchIndex(desc, -1) {
		out = append(out, PinMention{Text: desc[m[2]:m[3]], Start: m[2], End: m[3], AfterGAIE: true})
		seen[m[2]] = true
	}
	for _, m := range hexToken.FindAllStringIndex(desc, -1) {
		tok := desc[m[0]:m[1]]
		if seen[m[0]] || !strings.ContainsAny(tok, "0123456789") {
			continue // a word such as "defaced" is no hash
		}
		out = append(out, PinMention{Text: tok, Start: m[0], End: m[1]})
	}
	// In order of position, for rewriting from the back.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Start < out[j-1].Start; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// namesPin says whether text names the pin u: its ref, or a prefix of its
// commit of at least 7 hex digits.
func namesPin(text string, u Upstream) bool {
	if text == "" {
		return false
	}
	if text == u.Ref {
		return true
	}
	return len(text) >= 7 && u.Commit != "" && strings.HasPrefix(u.Commit, text)
}

// ForeignPins lists the pin mentions of the description of r that name
// neither its upstream pin nor (for a bare hash) its capi or reproduces
// commit: a description left over from another pin.
func ForeignPins(desc string, u Upstream, otherCommits ...string) []string {
	var out []string
	for _, m := range PinMentions(desc) {
		if namesPin(m.Text, u) {
			continue
		}
		other := false
		for _, c := range otherCommits {
			if !m.AfterGAIE && c != "" && strings.HasPrefix(c, m.Text) {
				other = true
			}
		}
		if !other {
			out = append(out, m.Text)
		}
	}
	return out
}

// PinName is how a description names u: its ref when that is a tag or
// branch, else the commit's first 12 hex digits.
func PinName(u Upstream) string {
	if u.Ref != "" && !isHexCommit(u.Ref) {
		return u.Ref
	}
	return gitformat.Short(u.Commit)
}

func isHexCommit(s string) bool {
	return len(s) >= 7 && len(s) <= 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// Redescribe rewrites each mention of the old pin in desc as the new pin's
// name. It returns the new text and the mentions it left that name
// neither the new pin nor one of otherCommits.
func Redescribe(desc string, old, new Upstream, otherCommits ...string) (string, []string) {
	ms := PinMentions(desc)
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		if !namesPin(m.Text, old) || namesPin(m.Text, new) {
			continue
		}
		if !m.AfterGAIE && !strings.HasPrefix(old.Commit, m.Text) {
			continue // a bare word equal to the old ref is not the pin
		}
		desc = desc[:m.Start] + PinName(new) + desc[m.End:]
	}
	return desc, ForeignPins(desc, new, otherCommits...)
}
