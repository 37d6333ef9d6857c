package image

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/moby/buildkit/client"
	gateway "github.com/moby/buildkit/frontend/gateway/client"
	"github.com/moby/buildkit/frontend/subrequests/lint"
	"github.com/moby/buildkit/solver/pb"
	"github.com/tonistiigi/fsutil"
)

// LintDockerfile asks the daemon's own Dockerfile frontend to check a
// Dockerfile without building it (the frontend.lint subrequest, what
// `docker build --check` uses). Build args pointing the images at scratch
// keep it from resolving anything remote. It returns the lint warnings; a
// Dockerfile the frontend cannot turn into a build is an error.
func LintDockerfile(ctx context.Context, c *client.Client, dir, dockerfile string, platforms []string, buildArgs map[string]string) ([]string, error) {
	return LintDockerfileWith(ctx, c, dir, dockerfile, platforms, buildArgs, nil)
}

// LintDockerfileWith is LintDockerfile for a Dockerfile that also reads
// named build contexts (COPY --from=NAME), which the check must resolve.
func LintDockerfileWith(ctx context.Context, c *client.Client, dir, dockerfile string, platforms []string, buildArgs map[string]string, contexts map[string]NamedContext) ([]string, error) {
	fsys, err := fsutil.NewFS(dir)
	if err != nil {
		return nil, err
	}
	attrs := map[string]string{"requestid": lint.RequestLint, "filename": dockerfile}
	if len(platforms) > 0 {
		attrs["platform"] = joinComma(platforms)
	}
	for k, v := range buildArgs {
		attrs["build-arg:"+k] = v
	}
	var results lint.LintResults
	ch := make(chan *client.SolveStatus)
	go func() {
		for range ch {
		}
	}()
	opt := client.SolveOpt{LocalMounts: map[string]fsutil.FS{"context": fsys, "dockerfile": fsys}, FrontendAttrs: map[string]string{}}
	if err := addNamedContexts(&opt, contexts); err != nil {
		return nil, err
	}
	maps.Copy(attrs, opt.FrontendAttrs)
	_, err = c.Build(ctx, opt, "epp-build",
		func(ctx context.Context, gc gateway.Client) (*gateway.Result, error) {
			res, err := gc.Solve(ctx, gateway.SolveRequest{Frontend: "dockerfile.v0", FrontendOpt: attrs})
			if err != nil {
				return nil, err
			}
			dt, ok := res.Metadata["result.json"]
			if !ok {
				return nil, errors.New("the Dockerfile frontend returned no lint result")
			}
			return res, json.Unmarshal(dt, &results)
		}, ch)
	if err != nil {
		return nil, fmt.Errorf("check %s with the Dockerfile frontend: %w", dockerfile, err)
	}
	if results.Error != nil {
		return nil, fmt.Errorf("%s: %s (line %d)", dockerfile, results.Error.Message, firstLine(&results.Error.Location))
	}
	var warnings []string
	for _, w := range results.Warnings {
		warnings = append(warnings, w.RuleName+": "+w.Detail)
	}
	return warnings, nil
}

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ","
		}
		out += v
	}
	return out
}

func firstLine(l *pb.Location) int32 {
	for _, r := range l.Ranges {
		if r != nil && r.Start != nil {
			return r.Start.Line
		}
	}
	return 0
}
