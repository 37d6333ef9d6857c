package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/report"
)

// ReleaseAll builds several versions in one command. Every version's
// preflight runs first, so everything missing for any of them is listed at
// once; then the BuildKit nodes are connected once and every version is
// built on that connection in turn, sharing BuildKit's cache (and the C
// API cache) between them. It stops at the first version that fails and
// returns those built.
func ReleaseAll(ctx context.Context, b *Resolved, reqs []Request) ([]Built, error) {
	plans, err := b.forVersions(reqs)
	if err != nil {
		return nil, err
	}
	built := func(p *plan, req Request, rep *report.Report) Built {
		return Built{Version: versionOf(req.Recipe), Repository: p.repository, Tags: p.allTags(), Pushed: b.opt.Push, Report: rep}
	}
	if len(reqs) == 1 {
		rep, err := b.release(ctx, plans[0], reqs[0], nil)
		if err != nil {
			return nil, err
		}
		return []Built{built(plans[0], reqs[0], rep)}, nil
	}
	var missing []Missing
	seen := map[string]bool{}
	for i, req := range reqs {
		err := b.preflight(ctx, plans[i], req)
		pe, ok := err.(*PreflightError)
		switch {
		case err == nil:
			continue
		case !ok:
			return nil, err
		}
		for _, m := range pe.Missing {
			if key := m.What + "\x00" + m.Fix; !seen[key] {
				seen[key] = true
				missing = append(missing, m)
			}
		}
	}
	if len(missing) > 0 {
		sortMissing(missing)
		return nil, &PreflightError{Missing: missing}
	}
	shared := cloneNodes(b.base.nodes)
	if err := shared.Connect(ctx, b.opt.TLS); err != nil {
		return nil, err
	}
	defer shared.Close()
	var out []Built
	for i, req := range reqs {
		version := versionOf(req.Recipe)
		fmt.Fprintf(writerOr(b.opt.Stderr), "== build %s\n", version)
		rep, err := b.release(ctx, plans[i], req, shared)
		if err != nil {
			return out, fmt.Errorf("version %s: %w", version, err)
		}
		out = append(out, built(plans[i], req, rep))
	}
	return out, nil
}

// tagMore sets the --tag tags, after the image's own tag, on the same
// verified index.
func tagMore(ctx context.Context, p *plan, digestRef string, ro image.RegistryOptions, stdout io.Writer) error {
	for _, t := range p.ci.extraTags {
		if err := image.Tag(ctx, t.String(), digestRef, ro); err != nil {
			return fmt.Errorf("tag: %w", err)
		}
		fmt.Fprintf(stdout, "tagged %s\n", t.String())
	}
	return nil
}
