package image

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/epp-build/epp-build/internal/netclient"
	"github.com/epp-build/epp-build/internal/redact"
)

// RegistryOptions say how to talk to the registry from this process.
type RegistryOptions struct {
	Insecure bool
	Keychain authn.Keychain
	// Backoff is the first retry delay for 5xx answers (default 1s).
	Backoff time.Duration
	// Steps is how many tries a request gets (default 4).
	Steps int
}

func (o RegistryOptions) nameOpts() []name.Option {
	if o.Insecure {
		return []name.Option{name.Insecure}
	}
	return nil
}

func (o RegistryOptions) remoteOpts(ctx context.Context) []remote.Option {
	kc := o.Keychain
	if kc == nil {
		kc = authn.DefaultKeychain
	}
	kc = rememberingKeychain{kc}
	d, steps := o.Backoff, o.Steps
	if d == 0 {
		d = time.Second
	}
	if steps == 0 {
		steps = 4
	}
	// A bad EPP_BUILD_NET_TIMEOUT is reported by the module proxy's
	// client; here it falls back to the defaults rather than to no deadline.
	timeouts, _ := netclient.FromEnv()
	return []remote.Option{
		remote.WithContext(ctx),
		remote.WithTransport(netclient.Transport(timeouts)),
		remote.WithAuthFromKeychain(kc),
		remote.WithRetryStatusCodes(http.StatusInternalServerError, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout),
		remote.WithRetryBackoff(remote.Backoff{Duration: d, Factor: 2, Jitter: 0.1, Steps: steps}),
	}
}

// PlatformImage is one platform's image in the pushed index.
type PlatformImage struct {
	Platform   string   `json:"platform"`
	Digest     string   `json:"digest"`
	Size       int64    `json:"size"` // manifest + config + compressed layers
	Entrypoint []string `json:"entrypoint,omitempty"`
	// ArchChecked says the entrypoint's ELF header matched the platform.
	ArchChecked bool `json:"archChecked"`
}

// Verified is what the registry holds for the index.
type Verified struct {
	IndexDigest string          `json:"indexDigest"`
	Images      []PlatformImage `json:"images"`
}

// VerifyError lists what is wrong with the pushed index.
type VerifyError struct {
	Ref      string
	Problems []string
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("pushed index %s is not what was built: %s", e.Ref, strings.Join(e.Problems, "; "))
}

// attestationPlatform is how BuildKit marks attestation manifests.
const attestationPlatform = "unknown/unknown"

// Verify reads the index at ref and checks that every wanted platform is
// present once with a config of the same OS/architecture; attestation
// entries are ignored.
func Verify(ctx context.Context, ref string, platforms []string, ro RegistryOptions) (*Verified, error) {
	r, err := name.ParseReference(ref, ro.nameOpts()...)
	if err != nil {
		return nil, redact.Error(fmt.Errorf("verify %s: %w", ref, err))
	}
	opts := ro.remoteOpts(ctx)
	idx, err := remote.Index(r, opts...)
	if err != nil {
		return nil, registryError(r.Context().RegistryStr(), fmt.Errorf("read index %s: %w", redact.Text(ref), err))
	}
	return verifyIndex(RemoteIndex(idx, r.Context(), opts), ref, platforms)
}

func verifyIndex(idx v1.ImageIndex, ref string, platforms []string) (*Verified, error) {
	dgst, err := idx.Digest()
	if err != nil {
		return nil, err
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", ref, err)
	}
	want := map[string]bool{}
	for _, p := range platforms {
		want[p] = true
	}
	out := &Verified{IndexDigest: dgst.String()}
	var problems []string
	seen := map[string]bool{}
	for _, d := range im.Manifests {
		if d.Platform == nil {
			problems = append(problems, fmt.Sprintf("manifest %s has no platform", d.Digest))
			continue
		}
		p := d.Platform.OS + "/" + d.Platform.Architecture
		if p == attestationPlatform || d.Annotations["vnd.docker.reference.type"] == "attestation-manifest" {
			continue
		}
		if !want[p] {
			problems = append(problems, fmt.Sprintf("unexpected platform %s (%s)", p, d.Digest))
			continue
		}
		if seen[p] {
			problems = append(problems, fmt.Sprintf("platform %s appears twice", p))
			continue
		}
		seen[p] = true
		pi, err := inspect(idx, d, p)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		out.Images = append(out.Images, *pi)
	}
	for _, p := range platforms {
		if !seen[p] {
			problems = append(problems, "platform "+p+" is missing")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, &VerifyError{Ref: ref, Problems: problems}
	}
	sort.Slice(out.Images, func(i, j int) bool { return out.Images[i].Platform < out.Images[j].Platform })
	return out, nil
}

func inspect(idx v1.ImageIndex, d v1.Descriptor, platform string) (*PlatformImage, error) {
	img, err := idx.Image(d.Digest)
	if err != nil {
		return nil, fmt.Errorf("%s image %s: %w", platform, d.Digest, err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("%s config: %w", platform, err)
	}
	if got := cfg.OS + "/" + cfg.Architecture; got != platform {
		return nil, fmt.Errorf("index says %s but the image config says %s (%s)", platform, got, d.Digest)
	}
	m, err := img.Manifest()
	if err != nil {
		return nil, fmt.Errorf("%s manifest: %w", platform, err)
	}
	size := d.Size + m.Config.Size
	for _, l := range m.Layers {
		size += l.Size
	}
	checked, err := checkEntrypointArch(img, platform, cfg.Config.Entrypoint)
	if err != nil {
		return nil, err
	}
	return &PlatformImage{Platform: platform, Digest: d.Digest.String(), Size: size, Entrypoint: cfg.Config.Entrypoint, ArchChecked: checked}, nil
}

// Tag points tag at the already pushed index digest. Called only after
// verification and smoke succeeded, so a failed build never moves a tag.
func Tag(ctx context.Context, tag, digestRef string, ro RegistryOptions) error {
	t, err := name.NewTag(tag, ro.nameOpts()...)
	if err != nil {
		return fmt.Errorf("tag %s: %w", tag, err)
	}
	r, err := name.ParseReference(digestRef, ro.nameOpts()...)
	if err != nil {
		return fmt.Errorf("tag %s: %w", tag, err)
	}
	opts := ro.remoteOpts(ctx)
	desc, err := remote.Get(r, opts...)
	if err != nil {
		return registryError(t.RegistryStr(), fmt.Errorf("read %s to tag it: %w", digestRef, err))
	}
	if err := remote.Tag(t, desc, opts...); err != nil {
		return registryError(t.RegistryStr(), fmt.Errorf("tag %s as %s: %w", digestRef, tag, err))
	}
	return nil
}

// registryError types ggcr's transport errors by status code.
func registryError(registry string, err error) error {
	var timeout *netclient.TimeoutError
	if d := netclient.Describe("registry", registry, err); errors.As(d, &timeout) {
		return redact.Error(d)
	}
	var te *transport.Error
	if errors.As(err, &te) {
		switch {
		case te.StatusCode == http.StatusUnauthorized || te.StatusCode == http.StatusForbidden:
			return &RegistryAuthError{Registry: registry, Err: err}
		case te.StatusCode >= 500:
			return &RegistryServerError{Registry: registry, Attempts: 0, Err: err}
		}
	}
	return classify(registry, 0, err)
}
