// Package nodes assigns each platform of a build to a BuildKit daemon
// (--buildkit ADDR, or PLATFORM=ADDR per platform) and connects to all of
// them before any work starts.
package nodes

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/moby/buildkit/client"
	"golang.org/x/sync/errgroup"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/platform"
	"github.com/epp-build/epp-build/internal/redact"
)

// Node is one BuildKit daemon and the platforms it builds.
type Node struct {
	Addr      string   // as given; "" = $BUILDKIT_HOST
	Platforms []string // in the order the build asked for them
	Client    *client.Client
}

// Name is the node's address for messages, credentials masked.
func (n *Node) Name() string { return redact.URL(n.Addr) }

// Plan is which node builds which platforms.
type Plan struct {
	Nodes []*Node
	// PerPlatform is true when the addresses were given per platform: each
	// node builds its platforms natively and the images are assembled into
	// one index. False means one multi-platform solve on one node.
	PerPlatform bool
}

// SpecError is a --buildkit value set that cannot assign exactly one node
// to every platform.
type SpecError struct{ Reason string }

func (e *SpecError) Error() string { return "--buildkit: " + e.Reason }

// platformKey matches "os/arch[/variant]=" at the start of a value; an
// address never starts so (it has a scheme).
var platformKey = regexp.MustCompile(`^([a-z0-9_]+/[a-z0-9_]+(?:/[a-z0-9_]+)?)=(.*)$`)

// Parse reads --buildkit values (repeated flags, each may be a comma
// list): either one plain address for every platform, or PLATFORM=ADDR
// pairs naming exactly one address for each platform in platforms, and no
// other. No value means $BUILDKIT_HOST (resolved at Connect).
func Parse(specs []string, requested []platform.Platform) (*Plan, error) {
	// A node is told its platforms by their OCI names, as BuildKit takes them.
	platforms := platform.Strings(requested)
	var plain []string
	pairs := map[string]string{}
	var order []string
	for _, spec := range specs {
		for _, item := range strings.Split(spec, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			m := platformKey.FindStringSubmatch(item)
			if m == nil {
				if err := CheckAddress(item); err != nil {
					return nil, &SpecError{Reason: err.Error()}
				}
				plain = append(plain, item)
				continue
			}
			p, addr := m[1], strings.TrimSpace(m[2])
			if addr == "" {
				return nil, &SpecError{Reason: fmt.Sprintf("%s= has no address (want %s=tcp://HOST:PORT or unix:///PATH)", p, p)}
			}
			if err := CheckAddress(addr); err != nil {
				return nil, &SpecError{Reason: p + "=" + err.Error()}
			}
			if prev, dup := pairs[p]; dup {
				return nil, &SpecError{Reason: fmt.Sprintf("%s is given twice (%s and %s); give each platform one node", p, redact.URL(prev), redact.URL(addr))}
			}
			pairs[p] = addr
			order = append(order, p)
		}
	}
	switch {
	case len(pairs) == 0 && len(plain) <= 1:
		addr := ""
		if len(plain) == 1 {
			addr = plain[0]
		}
		return &Plan{Nodes: []*Node{{Addr: addr, Platforms: slices.Clone(platforms)}}}, nil
	case len(pairs) == 0:
		return nil, &SpecError{Reason: fmt.Sprintf("%d addresses without a platform (%s); give one address, or PLATFORM=ADDR for each platform", len(plain), redactAll(plain))}
	case len(plain) > 0:
		return nil, &SpecError{Reason: fmt.Sprintf("%s has no platform while others do; give PLATFORM=ADDR for each platform", redactAll(plain))}
	}
	var problems []string
	for _, p := range order {
		if !slices.Contains(platforms, p) {
			problems = append(problems, fmt.Sprintf("%s=%s names a platform the build does not ask for (--platform %s)", p, redact.URL(pairs[p]), strings.Join(platforms, ",")))
		}
	}
	byAddr := map[string]*Node{}
	plan := &Plan{PerPlatform: true}
	for _, p := range platforms {
		addr, ok := pairs[p]
		if !ok {
			problems = append(problems, fmt.Sprintf("no node for %s (add %s=ADDR)", p, p))
			continue
		}
		n := byAddr[addr]
		if n == nil {
			n = &Node{Addr: addr}
			byAddr[addr] = n
			plan.Nodes = append(plan.Nodes, n)
		}
		n.Platforms = append(n.Platforms, p)
	}
	if len(problems) > 0 {
		return nil, &SpecError{Reason: strings.Join(problems, "; ")}
	}
	return plan, nil
}

// scheme is how every BuildKit address starts (tcp://, unix://,
// docker-container://, kube-pod://, ...).
var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// CheckAddress refuses a BuildKit address without a scheme, naming the
// address it most likely means: the client would otherwise read
// 127.0.0.1:1234 as a scheme "127.0.0.1" and fail at connect time, where
// it looks like a daemon that is down.
func CheckAddress(addr string) error {
	if scheme.MatchString(addr) {
		return nil
	}
	prefix := "tcp://"
	if strings.HasPrefix(addr, "/") {
		prefix = "unix://"
	}
	// Masked with its scheme: only a URL shows where user:pass@ is.
	want := redact.URL(prefix + addr)
	return fmt.Errorf("%s has no scheme: use %s (addresses are tcp://HOST:PORT, unix:///PATH or docker-container://NAME)", strings.TrimPrefix(want, prefix), want)
}

func redactAll(addrs []string) string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = redact.URL(a)
	}
	return strings.Join(out, ", ")
}

// NodeError is a failure on one node: unreachable, or its solve failed.
// Nothing was tagged.
type NodeError struct {
	Platforms []string
	Addr      string // redacted
	Err       error
}

func (e *NodeError) Error() string {
	return fmt.Sprintf("BuildKit node for %s at %s: %v", strings.Join(e.Platforms, ","), e.Addr, e.Err)
}

func (e *NodeError) Unwrap() error { return e.Err }

// Connect dials every node of the plan at once and checks each answers,
// so an unreachable node fails the build in seconds, before any compile,
// naming its platforms and address. On error no connection is left open.
func (p *Plan) Connect(ctx context.Context, tls image.TLSOptions) error {
	if len(p.Nodes) == 1 && !p.PerPlatform {
		n := p.Nodes[0]
		addr, err := image.Address(n.Addr)
		if err != nil {
			return err
		}
		n.Addr = addr
		n.Client, err = image.Connect(ctx, addr, tls)
		return err
	}
	var eg errgroup.Group
	for _, n := range p.Nodes {
		eg.Go(func() error {
			c, err := image.Connect(ctx, n.Addr, tls)
			if err != nil {
				return &NodeError{Platforms: n.Platforms, Addr: n.Name(), Err: err}
			}
			n.Client = c
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		p.Close()
		return err
	}
	return nil
}

// Close closes every open connection.
func (p *Plan) Close() {
	for _, n := range p.Nodes {
		if n.Client != nil {
			n.Client.Close()
			n.Client = nil
		}
	}
}

// For returns the node that builds platform, nil if none.
func (p *Plan) For(platform string) *Node {
	for _, n := range p.Nodes {
		if slices.Contains(n.Platforms, platform) {
			return n
		}
	}
	return nil
}
