package review

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixesFixture holds v1 (go1.26.8, the x/net fix GO-2026-4601) and v2
// (go1.26.10, that fix again, then two patches fixing GO-2026-6603 and
// GO-2026-6629, one of them also naming a commit in a Fixes: trailer).
var fixesFixture = filepath.Join("testdata", "fixes")

func TestCompareFixesListsWhatTheNewerLineFixes(t *testing.T) {
	f, err := CompareFixes(fixesFixture, "v1", "v2")
	require.NoError(t, err)
	assert.Equal(t, []FixedFinding{
		{ID: "GO-2026-6603", Patch: "0002-deps-bump-google.golang.org-grpc-to-v1.79.3.patch", Subject: "deps: bump google.golang.org/grpc to v1.79.3"},
		{ID: "GO-2026-6629", Patch: "0003-Fix-the-stream-close.patch", Subject: "Fix the stream close"},
	}, f.Findings, "each id once, from the first patch naming it; what v1 fixed already and a commit are not listed")
	require.NotNil(t, f.Toolchain)
	assert.Equal(t, "Go go1.26.8 → go1.26.10", f.Toolchain.String())

	back, err := CompareFixes(fixesFixture, "v2", "v1")
	require.NoError(t, err)
	assert.Empty(t, back.Findings, "an older line fixes nothing the newer one does not")
	assert.Equal(t, &ToolchainMove{From: "go1.26.10", To: "go1.26.8"}, back.Toolchain)

	same, err := CompareFixes(fixesFixture, "v2", "v2")
	require.NoError(t, err)
	assert.Empty(t, same.Findings)
	assert.Nil(t, same.Toolchain, "no move when both lines build with the same Go")
}

func TestAToolchainFirstPinnedMovesFromTheGoAtHand(t *testing.T) {
	assert.Equal(t, "Go unpinned (the Go at hand) → go1.26.10", ToolchainMove{To: "go1.26.10"}.String())
}

func TestReleaseNotesHaveAFixesSection(t *testing.T) {
	n, err := Since(context.Background(), fixesFixture, "v1", "v2", nil)
	require.NoError(t, err)

	var text bytes.Buffer
	require.NoError(t, WriteSince(&text, n))
	assert.Contains(t, text.String(), "fixes:\n  Go go1.26.8 → go1.26.10\n"+
		"  GO-2026-6603  0002-deps-bump-google.golang.org-grpc-to-v1.79.3.patch  deps: bump google.golang.org/grpc to v1.79.3\n"+
		"  GO-2026-6629  0003-Fix-the-stream-close.patch                         Fix the stream close\n\n")

	var md bytes.Buffer
	require.NoError(t, WriteSinceMarkdown(&md, n))
	assert.Contains(t, md.String(), "### Fixes\n\n- Toolchain: Go go1.26.8 → go1.26.10\n\n"+
		"| Finding | Patch | File |\n|---|---|---|\n"+
		"| [GO-2026-6603](https://pkg.go.dev/vuln/GO-2026-6603) | deps: bump google.golang.org/grpc to v1.79.3 | `0002-deps-bump-google.golang.org-grpc-to-v1.79.3.patch` |\n"+
		"| [GO-2026-6629](https://pkg.go.dev/vuln/GO-2026-6629) | Fix the stream close | `0003-Fix-the-stream-close.patch` |\n\n### Patches\n")

	data, err := json.Marshal(n)
	require.NoError(t, err)
	var doc struct {
		Fixes struct {
			Findings  []struct{ ID, Patch string }
			Toolchain struct{ From, To string }
		}
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Len(t, doc.Fixes.Findings, 2)
	assert.Equal(t, "GO-2026-6603", doc.Fixes.Findings[0].ID)
	assert.Equal(t, "go1.26.8", doc.Fixes.Toolchain.From)
	assert.Equal(t, "go1.26.10", doc.Fixes.Toolchain.To)
}

func TestReleaseNotesWithNothingFixedSaySo(t *testing.T) {
	n, err := Since(context.Background(), filepath.Join("testdata", "patches"), "v1", "v2", nil)
	require.NoError(t, err)
	var text, md bytes.Buffer
	require.NoError(t, WriteSince(&text, n))
	require.NoError(t, WriteSinceMarkdown(&md, n))
	assert.Contains(t, text.String(), "fixes:\n  no Fixes: trailer added, no toolchain move\n")
	assert.Contains(t, md.String(), "### Fixes\n\nNo `Fixes:` trailer added, no toolchain move.\n\n### Patches\n")
	data, err := json.Marshal(n.Fixes)
	require.NoError(t, err)
	assert.JSONEq(t, `{"findings": []}`, string(data), "an empty list, not null, for tools reading the notes")
}
