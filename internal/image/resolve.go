package image

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	gateway "github.com/moby/buildkit/frontend/gateway/client"
	"github.com/moby/buildkit/session"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/epp-build/epp-build/internal/redact"
)

// ResolveImages asks the BuildKit node to resolve each image reference for
// plat, as its own pulls will (its registry settings, this session's
// credentials), without pulling anything. It returns the references that
// did not resolve, with why; none when every one did. An error is the node
// itself failing.
func ResolveImages(ctx context.Context, c *client.Client, refs []string, plat string, kc authn.Keychain) (map[string]error, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	osName, arch, _ := strings.Cut(plat, "/")
	arch, _, _ = strings.Cut(arch, "/")
	var mu sync.Mutex
	failed := map[string]error{}
	opt := client.SolveOpt{Session: []session.Attachable{authAttachable(kc)}}
	ch := make(chan *client.SolveStatus)
	go func() {
		for range ch {
		}
	}()
	_, err := c.Build(ctx, opt, "epp-build-preflight", func(ctx context.Context, gc gateway.Client) (*gateway.Result, error) {
		var wg sync.WaitGroup
		for _, ref := range refs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, _, err := gc.ResolveImageConfig(ctx, ref, sourceresolver.Opt{
					LogName:  "preflight: resolve " + redact.URL(ref),
					ImageOpt: &sourceresolver.ResolveImageOpt{Platform: &ocispecs.Platform{OS: osName, Architecture: arch}},
				})
				if err != nil {
					mu.Lock()
					failed[ref] = err
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		return gateway.NewResult(), nil
	}, ch)
	if err != nil {
		return nil, fmt.Errorf("resolve images on the BuildKit node: %w", err)
	}
	if len(failed) == 0 {
		return nil, nil
	}
	return failed, nil
}
