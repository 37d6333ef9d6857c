package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// checkCommandWords refuses a command line whose words do not name a
// command, before cobra runs anything. cobra acts on --help and --version
// before it validates arguments, so `epp-build chek --version v1.4.2`
// would print the tool's version and exit 0: a CI gate with a typo would
// pass without running. Checking the words first makes every unknown
// word, at every depth, a usage error.
func checkCommandWords(root *cobra.Command, args []string) error {
	if slices.Contains(args, cobra.ShellCompRequestCmd) || slices.Contains(args, cobra.ShellCompNoDescRequestCmd) {
		return nil // the shell's completion request (after global flags too); cobra answers it
	}
	c, rest, err := root.Find(args)
	if err != nil {
		return usageError{err}
	}
	if !c.HasAvailableSubCommands() {
		return nil // a leaf checks its own arguments
	}
	words := positionalWords(c, rest)
	if len(words) > 0 {
		return unknownCommand(c, words[0])
	}
	if c.HasParent() && !c.Runnable() && !asksForHelp(rest) && !hasUnknownFlag(c, rest) {
		return usageError{fmt.Errorf("%s needs a command: %s; see `%s --help`",
			c.CommandPath(), strings.Join(childNames(c), ", "), c.CommandPath())}
	}
	return nil
}

// unknownCommand is the one message for a word that names no command.
func unknownCommand(parent *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, parent.CommandPath())
	if s := parent.SuggestionsFor(word); len(s) > 0 {
		msg += "; did you mean " + quotedList(s, "or") + "?"
	} else {
		msg += fmt.Sprintf("; see `%s --help`", parent.CommandPath())
	}
	return usageError{fmt.Errorf("%s", msg)}
}

// quotedList is "a", "b" or "c".
func quotedList(items []string, conjunction string) string {
	quoted := make([]string, len(items))
	for i, it := range items {
		quoted[i] = fmt.Sprintf("%q", it)
	}
	if len(quoted) == 1 {
		return quoted[0]
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " " + conjunction + " " + quoted[len(quoted)-1]
}

func childNames(c *cobra.Command) []string {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	sort.Strings(names)
	return names
}

// positionalWords are the arguments that are neither flags nor flag
// values, read with c's flag definitions as pflag reads them. A flag c
// does not define is taken to have no value: its neighbour stays a word,
// so `aply --out x` is reported as the unknown command it is.
func positionalWords(c *cobra.Command, args []string) []string {
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(words, args[i+1:]...)
		case strings.HasPrefix(a, "--"):
			name, _, inline := strings.Cut(a[2:], "=")
			if f := lookupFlag(c, name); f != nil && !inline && f.NoOptDefVal == "" {
				i++ // the flag's value
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			shorts := a[1:]
			for j, ch := range shorts {
				if ch >= 0x80 {
					break // pflag's shorthands are single bytes
				}
				f := lookupShorthand(c, string(ch))
				if f == nil || f.NoOptDefVal != "" {
					continue
				}
				if j == len(shorts)-1 {
					i++ // -o json: the value is the next argument
				}
				break // -ojson: the rest of this one is the value
			}
		default:
			words = append(words, a)
		}
	}
	return words
}

func lookupFlag(c *cobra.Command, name string) *pflag.Flag {
	if f := c.Flags().Lookup(name); f != nil {
		return f
	}
	for p := c; p != nil; p = p.Parent() {
		if f := p.PersistentFlags().Lookup(name); f != nil {
			return f
		}
	}
	return nil
}

func lookupShorthand(c *cobra.Command, short string) *pflag.Flag {
	if f := c.Flags().ShorthandLookup(short); f != nil {
		return f
	}
	for p := c; p != nil; p = p.Parent() {
		if f := p.PersistentFlags().ShorthandLookup(short); f != nil {
			return f
		}
	}
	return nil
}

// hasUnknownFlag: cobra's flag parsing then names the flag, which is
// the mistake to report first.
func hasUnknownFlag(c *cobra.Command, args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if name, ok := strings.CutPrefix(a, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			if lookupFlag(c, name) == nil && name != "help" {
				return true
			}
		}
	}
	return false
}

func asksForHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--help" || a == "-h" {
			return true
		}
	}
	return false
}

// flagError makes pflag's "unknown flag: --x" a usage error that names
// the command's help and, when one is close, the flag that was meant.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	var name string
	if n, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name = n
	}
	if name != "" {
		if s := closestFlag(c, name); s != "" {
			return usageError{fmt.Errorf("%s; did you mean --%s?", msg, s)}
		}
	}
	return usageError{fmt.Errorf("%s; see `%s --help`", msg, c.CommandPath())}
}

// closestFlag is the flag of c (its own or inherited) nearest to name by
// edit distance, when it is near enough to be a typo.
func closestFlag(c *cobra.Command, name string) string {
	best, bestDist := "", len(name)
	visit := func(f *pflag.Flag) {
		if d := editDistance(name, f.Name); !f.Hidden && d < bestDist {
			best, bestDist = f.Name, d
		}
	}
	c.LocalFlags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	if bestDist > 2 || bestDist*2 > len(name) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, by runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
