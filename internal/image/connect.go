// Package image holds the BuildKit and registry steps of an EPP image
// build: the Dockerfiles, the solve that pushes a multi-platform index by
// digest (one solve on one node, or one per node joined by AssembleIndex),
// verification of what was pushed, the smoke run and the tag. Each step is
// a function of its own because the order is the caller's (internal/pipeline):
// push by digest, verify, attach and check the attestations, smoke, and
// only then tag, so a tag never names an image that failed a check.
package image

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/moby/buildkit/client"
	// Registers docker-container:// so a BuildKit in a container serves too.
	_ "github.com/moby/buildkit/client/connhelper/dockercontainer"
	// Registers kube-pod:// for a buildkitd running in Kubernetes.
	_ "github.com/moby/buildkit/client/connhelper/kubepod"

	"github.com/epp-build/epp-build/internal/redact"
)

// TLSOptions are the client TLS settings for a tcp:// buildkitd.
type TLSOptions struct {
	CACert     string
	Cert       string
	Key        string
	ServerName string
}

// ErrNoBuildKit means neither --buildkit nor BUILDKIT_HOST named a daemon.
var ErrNoBuildKit = errors.New("no BuildKit address: pass --buildkit ADDR (unix://, tcp://, docker-container://) or set BUILDKIT_HOST")

// Address picks the buildkitd address: the flag, then $BUILDKIT_HOST.
func Address(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if env := os.Getenv("BUILDKIT_HOST"); env != "" {
		return env, nil
	}
	return "", ErrNoBuildKit
}

// UnreachableError means buildkitd did not answer.
type UnreachableError struct {
	Addr string
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("buildkitd at %s is not reachable: %s (is it running? check --buildkit / BUILDKIT_HOST)", redact.URL(e.Addr), redact.Text(e.Err.Error()))
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Connect dials buildkitd and checks it answers, so a wrong address fails
// here with its name rather than deep inside a solve.
func Connect(ctx context.Context, addr string, tlsOpt TLSOptions) (*client.Client, error) {
	var opts []client.ClientOpt
	if strings.HasPrefix(addr, "tcp://") {
		if tlsOpt.CACert != "" || tlsOpt.ServerName != "" {
			opts = append(opts, client.WithServerConfig(tlsOpt.ServerName, tlsOpt.CACert))
		}
		if tlsOpt.Cert != "" || tlsOpt.Key != "" {
			if tlsOpt.Cert == "" || tlsOpt.Key == "" {
				return nil, errors.New("BuildKit TLS: client certificate and key go together")
			}
			opts = append(opts, client.WithCredentials(tlsOpt.Cert, tlsOpt.Key))
		}
	}
	c, err := client.New(ctx, addr, opts...)
	if err != nil {
		return nil, &UnreachableError{Addr: addr, Err: err}
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := c.ListWorkers(pctx); err != nil {
		c.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &UnreachableError{Addr: addr, Err: err}
	}
	return c, nil
}

// WorkerPlatforms lists the platforms the daemon's workers can run (RUN
// steps), which tells whether arm64 emulation is registered.
func WorkerPlatforms(ctx context.Context, c *client.Client) (map[string]bool, error) {
	ws, err := c.ListWorkers(ctx)
	if err != nil {
		return nil, fmt.Errorf("list BuildKit workers: %w", err)
	}
	out := map[string]bool{}
	for _, w := range ws {
		for _, p := range w.Platforms {
			out[p.OS+"/"+p.Architecture] = true
		}
	}
	return out, nil
}
