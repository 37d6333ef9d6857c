package source

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestUpstreamIsTheTreesProvenance: a cached tree names the fetch that
// filled the cache, and the ref this request asked for.
func TestUpstreamIsTheTreesProvenance(t *testing.T) {
	f := newFixture(t)
	cache := t.TempDir()
	fetch(t, Request{Pin: pin("", "v1.0.0", f.rel), Kind: Path, Upstream: f.repo.Dir, CacheDir: cache})
	tree := fetch(t, Request{Pin: pin(deadURL(t), "v1.0.0", f.rel), Kind: Git, CacheDir: cache})
	assert.Equal(t, Upstream{
		Repository: f.repo.Dir, Ref: "v1.0.0", UpstreamCommit: f.rel, UpstreamTime: tree.Time, Via: string(Path),
		Provenance: tree.Provenance(),
	}, tree.Upstream())
}

// TestUpstreamMasksCredentials: the one place the upstream's URL is
// redacted on its way to applied.json and the build report.
func TestUpstreamMasksCredentials(t *testing.T) {
	tree := &Tree{Origin: "https://bot:s3cret@mirror.example/gaie.git", Via: Git, Time: time.Unix(1, 0)}
	assert.Equal(t, "https://bot:xxxxx@mirror.example/gaie.git", tree.Upstream().Repository)
}
