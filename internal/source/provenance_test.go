package source

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestCachedTreeSaysWhereItCameFrom: a git request served from an entry a
// path request filled says "from cache (fetched via path from DIR at
// TIME)", not "via git".
func TestCachedTreeSaysWhereItCameFrom(t *testing.T) {
	f := newFixture(t)
	cache := t.TempDir()
	before := time.Now().UTC().Truncate(time.Second)
	first := fetch(t, Request{Pin: pin("", "v1.0.0", f.rel), Kind: Path, Upstream: f.repo.Dir, CacheDir: cache})
	assert.False(t, first.Cached)
	assert.Equal(t, "via path from "+f.repo.Dir, first.Provenance())

	second := fetch(t, Request{Pin: pin(deadURL(t), "v1.0.0", f.rel), Kind: Git, CacheDir: cache})
	assert.True(t, second.Cached)
	assert.Equal(t, Path, second.Via)
	assert.Equal(t, f.repo.Dir, second.Origin)
	assert.False(t, second.Fetched.Before(before), "fetched %v, test started %v", second.Fetched, before)
	assert.Equal(t, "from cache (fetched via path from "+f.repo.Dir+" at "+second.Fetched.Format(time.RFC3339)+")", second.Provenance())
	assert.False(t, strings.Contains(second.Provenance(), "via git"))
}
