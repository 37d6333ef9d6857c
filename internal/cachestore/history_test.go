package cachestore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An upstream history lives in the upstream folder under the upstream
// locks, yet is listed as a history, not as a pinned tree; prune keeps
// it (no recipe pins a history) unless --all. The histories an older
// epp-build kept in a folder of their own are listed, and pruned.
func TestAHistoryIsListedApartAndPrunedOnlyWithAll(t *testing.T) {
	c := newFakeCache(t)
	history := filepath.Join(c.dir, "upstream", "history-0123456789abcdef")
	write(t, filepath.Join(history, "objects", "pack", "pack-1.pack"), 700)
	write(t, history+".lock", 0)
	old := filepath.Join(c.dir, "history", "fedcba9876543210")
	write(t, filepath.Join(old, "HEAD"), 30)

	l, err := List(c.dir)
	require.NoError(t, err)
	assert.Equal(t, KindUsage{Kind: History, What: kindOf(t, l, History).What, Entries: 2, Bytes: 730}, kindOf(t, l, History),
		"the upstream folder's history and one an older epp-build left")
	assert.Equal(t, 3, kindOf(t, l, Upstream).Entries, "the pinned trees alone")

	p, err := Prune(context.Background(), c.dir, pinnedByV1())
	require.NoError(t, err)
	assert.DirExists(t, history)
	assert.NoDirExists(t, old, "nothing reads a history in the old folder")
	assert.Contains(t, p.Removed, Entry{Kind: History, Path: old, Bytes: 30, Why: "a history an older epp-build made; none reads it now"})
	assert.Contains(t, p.Kept, Entry{Kind: History, Path: history, Bytes: 700, Why: "an upstream history (log, diff-series and rebase read it; --all removes it)"})

	p, err = Prune(context.Background(), c.dir, PruneOptions{All: true})
	require.NoError(t, err)
	assert.NoDirExists(t, history)
	assert.Contains(t, p.Removed, Entry{Kind: History, Path: history, Bytes: 700, Why: "--all"})
}
