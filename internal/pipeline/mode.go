package pipeline

import (
	"context"
	"io"
	"time"

	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/vulns"
)

// What both compile modes (hostmode.go, container.go) take and share.

// modeInput is what a compile mode needs to build and solve the image.
type modeInput struct {
	in      Input
	opt     Options
	p       *plan
	capiSrc *capi.Checkout
	work    string
	rep     *report.Report
	log     io.Writer
	ro      image.RegistryOptions // for assembling per-node results
	// gate, when set, scans the compiled binaries before anything is
	// pushed; its error stops the build there.
	gate func(ctx context.Context, bins []vulns.Binary) error
}

// built is what a compile mode's solve exported.
type built struct {
	digest   string
	binSizes map[string]int64         // platform -> EPP binary size, when known
	capi     map[string]capi.Artifact // platform -> host-built C API
}

func (m modeInput) stage(name string, start time.Time) { m.rep.Time(name, time.Since(start)) }

// solveOptions are the solve settings every compile mode shares.
func solveOptions(m modeInput) image.SolveOptions {
	opt := m.opt
	buildArgs := m.p.fetch.solveBuildArgs()
	buildArgs["BASE_IMAGE"] = m.p.baseImage
	if opt.BuilderImage != "" {
		buildArgs["BUILDER_IMAGE"] = opt.BuilderImage
	}
	labels, annotations := m.p.imageMetadata(m.in)
	return image.SolveOptions{
		Labels: labels, Annotations: annotations,
		Platforms: m.p.platforms, BuildArgs: buildArgs,
		Repository: m.p.repository, Push: opt.Push, OCITar: opt.OCITar, ImageName: m.p.tag.String(),
		Insecure: opt.Insecure, SourceDateEpoch: m.in.UpstreamTime, Progress: opt.Progress, Out: m.log,
		Backoff: opt.retryBackoff, CacheImports: m.p.cacheImports, CacheExports: m.p.cacheExports,
		Attestations: m.p.attest.FrontendAttrs(),
	}
}

// capiReport records where the C API source came from.
func capiReport(ctx context.Context, m modeInput, treeHash string) report.CAPI {
	src, p := m.capiSrc, m.p
	r := report.CAPI{Source: "local", TreeHash: treeHash, Crate: p.crate, Library: p.library, Generation: p.generation,
		CargoFeatures: m.opt.CAPIFeatures, Version: crateVersion(src)}
	if src.Commit != "" {
		r.Source, r.Commit = "pin", src.Commit
		if m.in.Recipe != nil && m.in.Recipe.CAPI != nil {
			r.Repository = redact.URL(m.in.Recipe.CAPI.Repository)
		}
		for _, a := range src.Patches {
			r.Patches = append(r.Patches, report.Patch{Name: a.File, SHA256: a.SHA256})
		}
	} else if commit := gitCommit(ctx, src.Root); commit != "" {
		r.Commit = commit
	}
	return r
}
