package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/vulns"
)

// outputCase runs one command that takes -o on input that works offline.
type outputCase struct {
	args []string
	// refuses are the -o values the command refuses (exit 2): status and
	// version print no markdown.
	refuses []string
	// notice is what stderr must say in every mode, "" for nothing.
	notice string
	// fields are what the JSON document (an object) must hold.
	fields []string
}

// outputCommands are the commands that take -o (an "output" flag), by
// path below the root ("series list"), from the command tree itself: a
// command added later is in the list whether or not a case names it.
func outputCommands(root *cobra.Command) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("output") != nil {
			out = append(out, strings.TrimPrefix(c.CommandPath(), root.Name()+" "))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// TestEveryOutputModeIsTheDocumentAlone: stdout is the result, stderr is
// the talk. Every command that takes -o is run with -o json, -o markdown
// and -o text: json is one JSON document with no null (an empty list is
// []), markdown is the document without notices, and the notices (the
// upstream history that cannot be read, a recipe checked only at a
// commit) are on stderr, one line each.
func TestEveryOutputModeIsTheDocumentAlone(t *testing.T) {
	patches, err := filepath.Abs(filepath.Join("..", "..", "patches"))
	require.NoError(t, err)
	ref := testutil.StartRegistry(t) + "/plain/epp:v1"
	testutil.PushRandomIndex(t, ref)
	const history = "notice: upstream commits between the pins not listed: "
	db := emptyVulnDB(t)
	bumpPatches, bumpUpstream := bumpLine(t, bumpEnv(t))
	cases := map[string][]outputCase{
		"versions": {{args: []string{"versions"}}},
		"log": {
			{args: []string{"log", "--version", "v1.4.2"}},
			{args: []string{"log", "--version", "v1.4.2", "--since", "v1.3.1"}, notice: history, fields: []string{"pins", "patches"}},
		},
		"diff-series": {{args: []string{"diff-series", "v1.3.1", "v1.4.2"}, notice: history, fields: []string{"old", "new", "pins", "patches"}}},
		"lint":        {{args: []string{"lint"}, notice: "notice: v1.4.2: reproduces v1.4.2 as Dynamo commit e147ceeac056, not checked at the v1.4.2 release"}},
		"series":      {{args: []string{"series", "--version", "v1.4.2"}}},
		"series list": {{args: []string{"series", "list", "--version", "v1.4.2"}}},
		"status":      {{args: []string{"status"}, refuses: []string{"markdown"}}},
		"inspect":     {{args: []string{"inspect", ref, "--insecure"}, fields: []string{"platforms", "report"}}},
		"version":     {{args: []string{"version"}, refuses: []string{"markdown"}}},
		"cache":       {{args: []string{"cache"}, fields: []string{"dir", "kinds", "bytes"}}},
		"cache list":  {{args: []string{"cache", "list"}}},
		"cache prune": {{args: []string{"cache", "prune", "--dry-run"}, fields: []string{"removed", "kept", "bytesFreed"}}},
		// Binary mode against a database of one entry for a module the
		// binary does not hold: offline, and nothing found.
		"vulns": {{args: []string{"vulns", "--binary", binary, "--db", db}}},
		// A dry run of a fixture line read from a local folder: no fetch.
		"bump": {{args: []string{"bump", "--patches", bumpPatches, "--version", "v9", "--source", "path", "--upstream", bumpUpstream.repo.Dir,
			"--dry-run", depModule + "@v1.1.0"}, fields: []string{"version", "plan", "written"}}},
	}
	commands := outputCommands(newRootCommand())
	require.NotEmpty(t, commands)
	for _, c := range commands {
		assert.Contains(t, cases, c, "%s takes -o: give it a case here, so that its output modes are checked", c)
	}
	for name := range cases {
		assert.Contains(t, commands, name, "a case for a command that takes no -o")
	}

	// The upstream history cannot be read: git refuses every transport,
	// as a machine without network would fail, at once.
	env := []string{"DOCKER_CONFIG=" + t.TempDir(), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.allow", "GIT_CONFIG_VALUE_0=never"}
	cache := t.TempDir()
	for _, name := range commands {
		for _, tc := range cases[name] {
			for _, mode := range []string{"json", "markdown", "text"} {
				args := append(append([]string{"--patches", patches}, tc.args...), "-o", mode)
				t.Run(strings.Join(append(slices.Clone(tc.args), mode), " "), func(t *testing.T) {
					r := runEnv(t, cache, env, args...)
					if slices.Contains(tc.refuses, mode) {
						assert.Equal(t, 2, r.code, r.stderr)
						assert.Empty(t, r.stdout)
						return
					}
					require.Equal(t, 0, r.code, r.stdout+r.stderr)
					require.NotEmpty(t, strings.TrimSpace(r.stdout))
					assert.NotRegexp(t, `(?m)^(notice|warning|epp-build):`, r.stdout, "stdout is only the document")
					if mode != "json" {
						// The JSON document carries the history's note;
						// the others leave it to stderr.
						assert.NotContains(t, r.stdout, "upstream history could not be read")
					}
					if tc.notice != "" {
						assert.Contains(t, r.stderr, tc.notice, "the notice is on stderr in every mode")
					}
					for _, line := range strings.Split(r.stderr, "\n") {
						if strings.HasPrefix(line, "notice: ") {
							assert.LessOrEqual(t, len(line), 160, "a notice is one short line: %q", line)
						}
					}
					switch mode {
					case "json":
						var doc any
						require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), "stdout is one JSON document:\n%s", r.stdout)
						assertNoNull(t, "", doc)
						for _, f := range tc.fields {
							require.IsType(t, map[string]any{}, doc)
							assert.Contains(t, doc, f, "the JSON document has %s", f)
						}
						if tc.notice == history {
							assert.Contains(t, r.stdout, `"historyNote": "the upstream history could not be read: `, "the JSON document carries the whole note")
						}
					case "markdown":
						assert.Regexp(t, `(?m)^(\||#|\*\*|No )`, r.stdout, "a markdown document")
					}
				})
			}
		}
	}
}

// nullAllowed are the fields whose null says "none" of one thing (an
// image's report, status' rebase or pick in progress), not an empty list.
var nullAllowed = map[string]bool{"report": true, "rebase": true, "pick": true}

// assertNoNull fails on a null anywhere in a decoded JSON document but
// the fields of nullAllowed: an empty list is [].
func assertNoNull(t *testing.T, path string, v any) {
	t.Helper()
	switch v := v.(type) {
	case nil:
		key := path[strings.LastIndex(path, ".")+1:]
		assert.True(t, nullAllowed[key], "%s is null; an empty list is []", path)
	case map[string]any:
		for k, e := range v {
			assertNoNull(t, path+"."+k, e)
		}
	case []any:
		for i, e := range v {
			assertNoNull(t, fmt.Sprintf("%s[%d]", path, i), e)
		}
	}
}

// emptyVulnDB is a vulnerability database, in the layout the go tooling
// serves, whose one entry names a module no binary here holds.
func emptyVulnDB(t *testing.T) string {
	t.Helper()
	osv := t.TempDir()
	entry := `{"schema_version":"1.3.1","id":"GO-0000-0001","modified":"2026-01-01T00:00:00Z","published":"2026-01-01T00:00:00Z",` +
		`"summary":"a test entry","affected":[{"package":{"name":"example.invalid/nothing","ecosystem":"Go"},` +
		`"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.0.0"}]}]}]}`
	require.NoError(t, os.WriteFile(filepath.Join(osv, "GO-0000-0001.json"), []byte(entry), 0o644))
	out := filepath.Join(t.TempDir(), "db")
	_, err := vulns.IndexOSV(osv, out, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	return "file://" + out
}
