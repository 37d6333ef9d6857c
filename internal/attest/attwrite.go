package attest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/epp-build/epp-build/internal/image"
)

// Every signer of an index shares its .att tag, and a registry offers no
// compare-and-swap on a tag (the distribution spec has no If-Match on a
// manifest PUT): a plain read, append, push loses the envelopes of a
// signer that pushed between our read and our push. So the write is
// optimistic: the merged manifest is pushed by digest, the tag is re-read
// and moved only if it is still what the merge was made from, and after
// the move the tag is read back, once the other writers' moves in flight
// have had time to land, to see that our envelopes are in it. Anything
// else starts over from a fresh read, a bounded number of times.
const maxAttestationWrites = 10

var (
	// attestationRetryBase spaces the attempts (times the attempt, plus
	// as much again at random) so that writers that collided do not
	// collide again in lockstep.
	attestationRetryBase = 50 * time.Millisecond
	// attestationSettle is how long after moving the tag it is read back:
	// another writer that checked the tag just before our move moves it
	// one request later, and that move must be seen for ours to be
	// noticed as lost.
	attestationSettle = 300 * time.Millisecond
	// beforeAttestationWrite, set only by tests, runs between reading the
	// .att image and writing the merge, where a concurrent signer's write
	// does harm.
	beforeAttestationWrite func(attempt int)
)

// AttestationRaceError is a signature that could not be kept in the .att
// tag: other writers replaced the tag without it on every attempt.
type AttestationRaceError struct {
	Tag      string
	Attempts int
}

func (e *AttestationRaceError) Error() string {
	return fmt.Sprintf("sign: %s changed under other writers on each of %d attempts and does not hold this signature: sign again", e.Tag, e.Attempts)
}

// addAttestations adds layers to the attestation image at tag, keeping
// every layer another writer put there, and returns once the tag holds
// all of layers.
func addAttestations(ctx context.Context, tag name.Tag, layers []mutate.Addendum, opts []remote.Option) error {
	registry := tag.RegistryStr()
	want := make([]v1.Hash, 0, len(layers))
	for _, l := range layers {
		d, err := l.Layer.Digest()
		if err != nil {
			return err
		}
		want = append(want, d)
	}
	for attempt := range maxAttestationWrites {
		if attempt > 0 {
			pause := attestationRetryBase*time.Duration(attempt) + rand.N(attestationRetryBase)
			if err := sleep(ctx, pause); err != nil {
				return err
			}
		}
		base, baseDigest, err := readAttestations(tag, opts)
		if err != nil {
			return image.RegistryError(registry, fmt.Errorf("sign: read %s: %w", tag, err))
		}
		m, err := base.Manifest()
		if err != nil {
			return image.RegistryError(registry, fmt.Errorf("sign: read %s: %w", tag, err))
		}
		absent := missing(m, want)
		if len(absent) == 0 {
			// A writer that merged after our lost move kept ours.
			return nil
		}
		add := make([]mutate.Addendum, 0, len(absent))
		for _, i := range absent {
			add = append(add, layers[i])
		}
		merged, err := mutate.Append(base, add...)
		if err != nil {
			return err
		}
		if beforeAttestationWrite != nil {
			beforeAttestationWrite(attempt)
		}
		// Blobs and manifest go up by digest first, so that what follows
		// the re-read is one request: the window another writer can
		// slip into stays that small.
		mergedDigest, err := merged.Digest()
		if err != nil {
			return err
		}
		if err := remote.Write(tag.Context().Digest(mergedDigest.String()), merged, opts...); err != nil {
			return image.RegistryError(registry, fmt.Errorf("sign: push %s: %w", tag, err))
		}
		now, err := headDigest(tag, opts)
		if err != nil {
			return image.RegistryError(registry, fmt.Errorf("sign: re-read %s: %w", tag, err))
		}
		if now != baseDigest {
			continue
		}
		if err := remote.Tag(tag, merged, opts...); err != nil {
			return image.RegistryError(registry, fmt.Errorf("sign: push %s: %w", tag, err))
		}
		if err := sleep(ctx, attestationSettle); err != nil {
			return err
		}
		held, err := holds(tag, want, opts)
		if err != nil {
			return image.RegistryError(registry, fmt.Errorf("sign: read back %s: %w", tag, err))
		}
		if held {
			return nil
		}
	}
	return &AttestationRaceError{Tag: tag.String(), Attempts: maxAttestationWrites}
}

// readAttestations is the attestation image at tag and its digest, or an
// empty image and "" when there is none yet.
func readAttestations(tag name.Tag, opts []remote.Option) (v1.Image, string, error) {
	desc, err := remote.Get(tag, opts...)
	if isNotFound(err) {
		return mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON), "", nil
	}
	if err != nil {
		return nil, "", err
	}
	img, err := desc.Image()
	if err != nil {
		return nil, "", err
	}
	return img, desc.Digest.String(), nil
}

// headDigest is the digest tag names now, "" when it names nothing. A GET
// rather than a HEAD: not every registry answers a HEAD with the digest.
func headDigest(tag name.Tag, opts []remote.Option) (string, error) {
	desc, err := remote.Get(tag, opts...)
	if isNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return desc.Digest.String(), nil
}

// holds reports whether the manifest tag names has every layer in want.
func holds(tag name.Tag, want []v1.Hash, opts []remote.Option) (bool, error) {
	desc, err := remote.Get(tag, opts...)
	if isNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	m, err := v1.ParseManifest(bytes.NewReader(desc.Manifest))
	if err != nil {
		return false, err
	}
	return len(missing(m, want)) == 0, nil
}

// missing is the positions in want of the digests m lists no layer of.
func missing(m *v1.Manifest, want []v1.Hash) []int {
	have := make(map[v1.Hash]bool, len(m.Layers))
	for _, l := range m.Layers {
		have[l.Digest] = true
	}
	var absent []int
	for i, d := range want {
		if !have[d] {
			absent = append(absent, i)
		}
	}
	return absent
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
