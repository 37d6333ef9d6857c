package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// everyCommand is every command of the tree that a user can type, the
// root first.
func everyCommand(t *testing.T) []*cobra.Command {
	t.Helper()
	var all []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		all = append(all, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand())
	require.Greater(t, len(all), 20, "the tree is walked whole")
	return all
}

// words is the command's path below the root, as arguments.
func words(c *cobra.Command) []string {
	return strings.Fields(commandPath(c))
}

// misspell swaps the second and third letters (chek for check would be a
// deletion; a swap is as common and keeps the length).
func misspell(name string) string {
	r := []rune(name)
	if len(r) < 3 {
		return name + "x"
	}
	r[1], r[2] = r[2], r[1]
	return string(r)
}

// assertUsageLine: exit 2, nothing on stdout, one line on stderr.
func assertUsageLine(t *testing.T, res result, args []string) {
	t.Helper()
	line := strings.Join(args, " ")
	assert.Equal(t, 2, res.code, "epp-build %s: exit code; stderr: %s", line, res.stderr)
	assert.Empty(t, res.stdout, "epp-build %s: nothing runs, so nothing is printed", line)
	assert.Regexp(t, `^epp-build: [^\n]+\n$`, res.stderr, "epp-build %s: one line on stderr", line)
}

// TestUnknownWordsAreUsageErrorsEverywhere walks the whole command tree:
// under every command, a misspelt subcommand, a misspelt flag and a stray
// argument exit 2 with one line, and never run anything. A command added
// later is covered without a new case.
func TestUnknownWordsAreUsageErrorsEverywhere(t *testing.T) {
	cache := t.TempDir()
	for _, c := range everyCommand(t) {
		path := words(c)
		t.Run(strings.Join(append([]string{"epp-build"}, path...), " "), func(t *testing.T) {
			for _, sub := range c.Commands() {
				if !sub.IsAvailableCommand() || misspell(sub.Name()) == sub.Name() {
					continue
				}
				typo := misspell(sub.Name())
				for _, tail := range [][]string{nil, {"--version", "v1.4.2"}, {"--help"}} {
					args := append(append(append([]string{}, path...), typo), tail...)
					res := run(t, cache, args...)
					assertUsageLine(t, res, args)
					assert.Contains(t, res.stderr, `unknown command "`+typo+`"`)
					assert.Regexp(t, `did you mean (".*", )?("[^"]*" or )?"`+sub.Name()+`"`, res.stderr)
				}
			}
			args := append(append([]string{}, path...), "--no-such-flag")
			res := run(t, cache, args...)
			assertUsageLine(t, res, args)
			assert.Contains(t, res.stderr, "unknown flag: --no-such-flag")

			// A stray word, where the command takes none: only asked of
			// commands whose argument check refuses it, so nothing that
			// takes a reference or a patch ever runs here.
			if c.HasAvailableSubCommands() || c.ValidateArgs([]string{"zzqx"}) != nil {
				args := append(append([]string{}, path...), "zzqx")
				assertUsageLine(t, run(t, cache, args...), args)
			}
		})
	}
}

func TestAMisspeltCommandNeverRunsTheRootsVersionFlag(t *testing.T) {
	res := run(t, t.TempDir(), "chek", "--version", "v1.4.2")
	assertUsageLine(t, res, []string{"chek"})
	assert.Contains(t, res.stderr, `unknown command "chek" for "epp-build"; did you mean "check"?`)
	res = run(t, t.TempDir(), "aply", "--out", "x")
	assert.Contains(t, res.stderr, `did you mean "apply"?`, "the unknown word is named, not the flag after it")
}

func TestFlagsThatExcludeEachOtherAreAUsageError(t *testing.T) {
	res := run(t, t.TempDir(), "rebase", "--continue", "--skip")
	assertUsageLine(t, res, []string{"rebase", "--continue", "--skip"})
	assert.Contains(t, res.stderr, "continue")
}

func TestAGroupWithoutItsCommandIsAUsageError(t *testing.T) {
	res := run(t, t.TempDir(), "completion")
	assertUsageLine(t, res, []string{"completion"})
	assert.Contains(t, res.stderr, "bash, fish, powershell, zsh")
	res = run(t, t.TempDir(), "completion", "--help")
	assert.Equal(t, 0, res.code)
	assert.Contains(t, res.stdout, "Available Commands")
}

func TestHelpTopics(t *testing.T) {
	cache := t.TempDir()
	res := run(t, cache, "help", "exit-codes")
	require.Equal(t, 0, res.code, res.stderr)
	for _, d := range exitCodeDocs {
		listed := regexp.MustCompile(`(?m)^  ` + strconv.Itoa(d.code) + ` +(.*)$`).FindStringSubmatch(res.stdout)
		if assert.NotNil(t, listed, "exit code %d is listed", d.code) {
			assert.True(t, strings.HasPrefix(d.meaning, listed[1]), "exit code %d: %q", d.code, listed[1])
		}
	}
	for _, line := range strings.Split(res.stdout, "\n") {
		assert.LessOrEqual(t, len(line), helpWidth, "help keeps to %d columns: %q", helpWidth, line)
	}
	res = run(t, cache, "help", "series", "drop")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "epp-build series drop")
	for _, topic := range [][]string{{"nosuch"}, {"series", "drpo"}, {"exit-code"}} {
		assertUsageLine(t, run(t, cache, append([]string{"help"}, topic...)...), topic)
	}
	assert.Contains(t, run(t, cache, "help", "exit-code").stderr, `did you mean "exit-codes"?`)
}

// TestEveryCommandDocumentsItsExitCodes: the exit codes are listed once
// (help exit-codes), and each command's help lists only its own, with a
// pointer to the whole table.
func TestEveryCommandDocumentsItsExitCodes(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range everyCommand(t) {
		if !c.HasParent() {
			assert.NotContains(t, c.Long, "Exit codes", "the root's help points to help exit-codes instead")
			continue
		}
		path := commandPath(c)
		seen[path] = true
		codes, ok := exitCodesOf(path)
		if !assert.True(t, ok, "%q is missing from commandExitCodes: say which exit codes it can return", path) {
			continue
		}
		assert.Equal(t, 1, strings.Count(c.Long, "Exit codes"), "%s: one exit-code section", path)
		assert.Contains(t, c.Long, "epp-build help exit-codes", path)
		for _, d := range exitCodeDocs {
			listed := regexp.MustCompile(`(?m)^  ` + strconv.Itoa(d.code) + ` +`).MatchString(c.Long)
			assert.Equal(t, slices.Contains(codes, d.code), listed, "%s: exit code %d listed in its help", path, d.code)
		}
	}
	for path := range commandExitCodes {
		assert.True(t, seen[path], "commandExitCodes names %q, which is no command", path)
	}
	sign := exitCodesSection(findCommand(t, "sign"))
	assert.NotContains(t, sign, "a patch does not apply", "sign never applies a patch")
}

func findCommand(t *testing.T, path ...string) *cobra.Command {
	t.Helper()
	c, rest, err := newRootCommand().Find(path)
	require.NoError(t, err)
	require.Empty(t, rest)
	return c
}

// TestFlagUsagesRenderAsFlags: pflag takes a backquoted word of a usage
// string as the flag's value name, so a switch documented with
// `go build` would render as `--capi go build`.
func TestFlagUsagesRenderAsFlags(t *testing.T) {
	placeholder := regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	for _, c := range everyCommand(t) {
		check := func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			if f.NoOptDefVal != "" && f.Value.Type() == "bool" {
				assert.Empty(t, name, "%s --%s is a switch; its usage must not backquote a word", c.CommandPath(), f.Name)
				return
			}
			if strings.Contains(f.Usage, "`") {
				assert.Regexp(t, placeholder, name, "%s --%s: a backquoted word is the value's name, such as `DIR`", c.CommandPath(), f.Name)
			}
		}
		c.LocalFlags().VisitAll(check)
	}
}
