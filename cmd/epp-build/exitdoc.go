package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// exitCodeDoc is one exit code and what it means: the one table that
// `epp-build help exit-codes`, every command's help and the README give.
type exitCodeDoc struct {
	code    int
	meaning string
}

var exitCodeDocs = []exitCodeDoc{
	{0, "success (also: already applied, nothing to do)"},
	{1, "failure not listed below (I/O, network, a tool that failed)"},
	{2, "usage: unknown command or version, wrong argument count, missing or bad flags (checked before anything is fetched or compiled)"},
	{3, "a patch does not apply (conflict, missing or existing file)"},
	{4, "refused input: invalid recipe, unreadable or hostile patch, an --out that holds changes apply did not make or was not made by apply, a rebase or pick state file edited to name other folders or another --exec command"},
	{5, "verification failed (commit, tag or module hash mismatch; a C binding whose prototypes differ from the C API library's header; a missing or mismatched attestation)"},
	{6, "check: committed patches are stale, or (--compile) the applied tree does not compile; rebase: stopped at a conflict, at a failed --exec command, or because the rebased tree does not compile (the first error's file and line named; fix and --continue); pick: stopped at a conflict; bump: the bumped tree does not compile (the first error named; --no-verify writes it anyway)"},
	{7, "lint found problems"},
	{8, "build preflight: something the build needs outside this machine is missing or unreachable (BuildKit node, registry, C API pin, builder, SBOM-generator or base image); every one is listed with the flag that changes it"},
	{9, "inspect, verify, sign: no such image (the registry has no manifest at the reference; its repository's tags are listed when it has some)"},
	{10, "vulns: a scanned line calls a vulnerable function that no --vex statement answers for (the whole report is printed first); build --vulns: a compiled EPP has a finding at or above its fail-on level that no --vex statement answers for (the findings are printed, nothing is pushed)"},
	{130, "interrupted (nothing half-written is left behind)"},
}

// Every command can end with these: success, a failure of the machine or
// the network, a usage mistake, an interrupt.
var commonExitCodes = []int{0, 1, 2, 130}

// commandExitCodes are the codes beyond commonExitCodes that each command
// can return, by command path below the root. A command missing here is
// caught by TestEveryCommandDocumentsItsExitCodes.
var commandExitCodes = map[string][]int{
	"versions":              {4},
	"apply":                 {3, 4, 5},
	"export":                {4},
	"check":                 {3, 4, 5, 6},
	"regen":                 {3, 4, 5},
	"pick":                  {3, 4, 5, 6},
	"rebase":                {3, 4, 5, 6},
	"status":                {4},
	"log":                   {4},
	"diff-series":           {4},
	"lint":                  {4, 5, 7},
	"series":                {4},
	"series list":           {4},
	"series reword":         {3, 4},
	"series drop":           {3, 4},
	"series move":           {3, 4},
	"series squash":         {3, 4},
	"build":                 {3, 4, 5, 8, 10},
	"builder":               {},
	"inspect":               {},
	"vulns":                 {3, 4, 5, 10},
	"bump":                  {3, 4, 5, 6},
	"verify":                {5},
	"sign":                  {5},
	"version":               {},
	"cache":                 {},
	"cache list":            {},
	"cache prune":           {4},
	"help":                  {},
	"completion":            {},
	"completion bash":       {},
	"completion zsh":        {},
	"completion fish":       {},
	"completion powershell": {},
}

// exitCodesOf is the sorted list of codes the command at path can return;
// ok is false for a command the table does not know.
func exitCodesOf(path string) (codes []int, ok bool) {
	extra, ok := commandExitCodes[path]
	codes = append(append([]int{}, commonExitCodes...), extra...)
	slices.Sort(codes)
	return slices.Compact(codes), ok
}

// commandPath is c's path below the root ("series drop").
func commandPath(c *cobra.Command) string {
	full := c.CommandPath()
	if !c.HasParent() {
		return ""
	}
	_, below, _ := strings.Cut(full, " ")
	return below
}

// exitCodesSection is the part of c's help that lists the codes c can
// return, each with its meaning.
func exitCodesSection(c *cobra.Command) string {
	codes, ok := exitCodesOf(commandPath(c))
	if !ok {
		return ""
	}
	var b strings.Builder
	b.WriteString("Exit codes (all of them: epp-build help exit-codes):\n")
	for _, d := range exitCodeDocs {
		if slices.Contains(codes, d.code) {
			writeExitCode(&b, d)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// allExitCodes is what `epp-build help exit-codes` prints.
func allExitCodes() string {
	var b strings.Builder
	b.WriteString("epp-build's exit codes (each command's --help lists the ones it can return):\n")
	for _, d := range exitCodeDocs {
		writeExitCode(&b, d)
	}
	return b.String()
}

// helpWidth is the width help text keeps to.
const helpWidth = 80

// writeExitCode writes "  CODE meaning", the meaning wrapped at helpWidth
// under its first word.
func writeExitCode(b *strings.Builder, d exitCodeDoc) {
	const indent = "      "
	line := fmt.Sprintf("  %-3d", d.code)
	for _, word := range strings.Fields(d.meaning) {
		if len(line)+1+len(word) > helpWidth && len(line) > len(indent) {
			b.WriteString(line + "\n")
			line = indent[:len(indent)-1]
		}
		line += " " + word
	}
	b.WriteString(line + "\n")
}

// addExitCodesToHelp ends the help of every command with its own codes.
func addExitCodesToHelp(c *cobra.Command) {
	if section := exitCodesSection(c); section != "" && c.HasParent() {
		c.Long = strings.TrimRight(c.Long, "\n")
		if c.Long == "" {
			c.Long = c.Short + "."
		}
		c.Long += "\n\n" + section
	}
	for _, sub := range c.Commands() {
		addExitCodesToHelp(sub)
	}
}
