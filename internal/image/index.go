package image

import (
	"sync"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// RemoteIndex wraps an index read from repo so that reading all its
// children is linear in their number. go-containerregistry's remote index
// parses its whole manifest again on every Image(h) call to find h, so
// inspect and verify, which visit every entry, took O(n²): 55 s for an
// index of 2,000 platforms. Here the manifest is parsed once, children are
// found by digest in a map, and each is read from the registry by its own
// digest (one request, as before).
func RemoteIndex(idx v1.ImageIndex, repo name.Repository, opts []remote.Option) v1.ImageIndex {
	return &indexedIndex{inner: idx, child: func(d v1.Descriptor) (v1.Image, error) {
		return remote.Image(repo.Digest(d.Digest.String()), opts...)
	}}
}

type indexedIndex struct {
	inner v1.ImageIndex
	child func(v1.Descriptor) (v1.Image, error)

	once     sync.Once
	manifest *v1.IndexManifest
	err      error
	byDigest map[v1.Hash]v1.Descriptor
}

func (x *indexedIndex) load() {
	x.once.Do(func() {
		x.manifest, x.err = x.inner.IndexManifest()
		if x.err != nil {
			return
		}
		x.byDigest = make(map[v1.Hash]v1.Descriptor, len(x.manifest.Manifests))
		for _, d := range x.manifest.Manifests {
			if _, dup := x.byDigest[d.Digest]; !dup {
				x.byDigest[d.Digest] = d
			}
		}
	})
}

// IndexManifest is the manifest parsed once. Callers must not change it.
func (x *indexedIndex) IndexManifest() (*v1.IndexManifest, error) {
	x.load()
	return x.manifest, x.err
}

// Image reads the child with digest h by its descriptor.
func (x *indexedIndex) Image(h v1.Hash) (v1.Image, error) {
	x.load()
	if x.err != nil {
		return nil, x.err
	}
	d, ok := x.byDigest[h]
	if !ok || !d.MediaType.IsImage() {
		return x.inner.Image(h) // its own error for what it lacks
	}
	return x.child(d)
}

func (x *indexedIndex) MediaType() (types.MediaType, error) { return x.inner.MediaType() }
func (x *indexedIndex) Digest() (v1.Hash, error)            { return x.inner.Digest() }
func (x *indexedIndex) Size() (int64, error)                { return x.inner.Size() }
func (x *indexedIndex) RawManifest() ([]byte, error)        { return x.inner.RawManifest() }

// ImageIndex reads a nested index as the wrapped one does.
func (x *indexedIndex) ImageIndex(h v1.Hash) (v1.ImageIndex, error) { return x.inner.ImageIndex(h) }
