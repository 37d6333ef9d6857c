package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/nodes"
	"github.com/epp-build/epp-build/internal/progress"
)

// solveImage builds the image on the plan's nodes. One node: one
// multi-platform solve, as always. Per-platform nodes: each node solves its
// own platforms at the same time and pushes them by digest, then one index
// of all of them is assembled and pushed by digest. A node that fails
// fails the build, naming the node; nothing is tagged here.
func solveImage(ctx context.Context, plan *nodes.Plan, so image.SolveOptions, ro image.RegistryOptions) (*image.SolveResult, error) {
	if !plan.PerPlatform {
		so.Node = plan.Nodes[0].Addr
		return image.Solve(ctx, plan.Nodes[0].Client, so)
	}
	digests := make([]string, len(plan.Nodes))
	out := &lockedWriter{w: writerOr(so.Out)} // the nodes write at once
	eg, ectx := errgroup.WithContext(ctx)
	for i, n := range plan.Nodes {
		o := so
		platforms := strings.Join(n.Platforms, ",")
		o.Platforms = n.Platforms
		o.CacheImports = image.CacheForPlatform(so.CacheImports, platforms)
		o.CacheExports = image.CacheForPlatform(so.CacheExports, platforms)
		o.Out = &linePrefixer{w: out, prefix: "[" + platforms + "] "}
		if o.Progress == "" || o.Progress == progress.Auto {
			o.Progress = progress.Plain // two live displays at once would garble a terminal
		}
		eg.Go(func() error {
			res, err := image.Solve(ectx, n.Client, o)
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				return &nodes.NodeError{Platforms: n.Platforms, Addr: n.Name(), Err: err}
			}
			fmt.Fprintf(out, "%s on %s: index %s\n", platforms, n.Name(), res.Digest)
			digests[i] = res.Digest
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	dgst, err := image.AssembleAnnotatedIndex(ctx, so.Repository, digests, image.IndexAnnotations(so.Annotations), ro)
	if err != nil {
		return nil, err
	}
	return &image.SolveResult{Digest: dgst, Attempts: 1}, nil
}

// smokeImage runs the entrypoint of each platform on the node that built
// it (one smoke solve per node), or all on the one node.
func smokeImage(ctx context.Context, plan *nodes.Plan, so image.SmokeOptions) (*image.SmokeResult, error) {
	if !plan.PerPlatform {
		return image.Smoke(ctx, plan.Nodes[0].Client, so)
	}
	res := &image.SmokeResult{Skipped: map[string]string{}}
	for _, n := range plan.Nodes {
		o := so
		o.Images = nil
		for _, img := range so.Images {
			if plan.For(img.Platform) == n {
				o.Images = append(o.Images, img)
			}
		}
		if len(o.Images) == 0 {
			continue
		}
		o.Out = &linePrefixer{w: so.Out, prefix: "[" + strings.Join(n.Platforms, ",") + "] "}
		r, err := image.Smoke(ctx, n.Client, o)
		if err != nil {
			return nil, &nodes.NodeError{Platforms: n.Platforms, Addr: n.Name(), Err: err}
		}
		res.Ran = append(res.Ran, r.Ran...)
		for p, why := range r.Skipped {
			res.Skipped[p] = why
		}
	}
	return res, nil
}

// lockedWriter serialises writes from goroutines to one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// linePrefixer writes each complete line with a prefix, so the progress
// of concurrent solves stays readable. Partial lines wait for their end.
type linePrefixer struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func (l *linePrefixer) Write(p []byte) (int, error) {
	if l.w == nil {
		return len(p), nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		prefix := l.prefix
		if i == 0 {
			prefix = "" // a blank line stays blank
		}
		if _, err := fmt.Fprintf(l.w, "%s%s", prefix, l.buf[:i+1]); err != nil {
			return 0, err
		}
		l.buf = l.buf[i+1:]
	}
	return len(p), nil
}
