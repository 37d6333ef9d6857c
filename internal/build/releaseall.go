package build

import (
	"context"
	"fmt"
	"io"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/nodes"
	"github.com/epp-build/epp-build/internal/report"
)

// ReleaseAll builds several versions in one command. Every version's
// preflight runs first, so everything missing for any of them is listed at
// once; then the BuildKit nodes are connected once and every version is
// built on that connection in turn, sharing BuildKit's cache (and the C
// API cache) between them. It stops at the first version that fails and
// returns the reports of those built.
func ReleaseAll(ctx context.Context, reqs []Request) ([]*report.Report, error) {
	if len(reqs) == 1 {
		rep, err := Release(ctx, reqs[0])
		if err != nil {
			return nil, err
		}
		return []*report.Report{rep}, nil
	}
	var missing []Missing
	seen := map[string]bool{}
	for _, req := range reqs {
		if err := req.Options.Validate(); err != nil {
			return nil, err
		}
		err := Preflight(ctx, req)
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
	first := reqs[0].Options
	plan, err := nodes.Parse(first.BuildKit, first.Platforms)
	if err != nil {
		return nil, err
	}
	if err := plan.Connect(ctx, first.TLS); err != nil {
		return nil, err
	}
	defer plan.Close()
	var reps []*report.Report
	for _, req := range reqs {
		req.Options.shared, req.Options.preflighted = plan, true
		version := ""
		if req.Recipe != nil {
			version = req.Recipe.Version
		}
		fmt.Fprintf(writerOr(req.Options.Stderr), "== build %s\n", version)
		rep, err := Release(ctx, req)
		if err != nil {
			return reps, fmt.Errorf("version %s: %w", version, err)
		}
		reps = append(reps, rep)
	}
	return reps, nil
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

// AllTags are every tag a build with these options sets: the image's, then
// --tag's. Bad options give none.
func (o *Options) AllTags() []string {
	p, problems, err := o.checkOptions()
	if err != nil || len(problems) > 0 || p.repository == "" {
		return nil
	}
	out := []string{p.tag.String()}
	for _, t := range p.ci.extraTags {
		out = append(out, t.String())
	}
	return out
}
