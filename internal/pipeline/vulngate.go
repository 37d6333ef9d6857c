package pipeline

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/vulns"
)

// VulnsGate is build --vulns: each platform's compiled EPP is scanned in
// binary mode after it is compiled and before anything is pushed: in host
// mode between the compile and the solve, in container mode inside the
// solve, read back before its export.
type VulnsGate struct {
	// FailOn is the level that refuses the image; "" scans nothing.
	FailOn vulns.Threshold
	// DB is the database URL ("" = vulns.DefaultDB); VEX an OpenVEX
	// document whose not_affected statements suppress their findings.
	DB, VEX string
}

func (g VulnsGate) enabled() bool { return g.FailOn != "" }

// checkVulns reads the --vex document now, so that a bad one stops the
// build before anything is compiled.
func (o *Options) checkVulns(p *plan) []string {
	g := o.Vulns
	if !g.enabled() {
		if g.DB != "" || g.VEX != "" {
			return []string{"--vulns-db and --vex set how --vulns scans: pass --vulns fail-on=called|imported|none too"}
		}
		return nil
	}
	if o.Compile == CompileContainer && p.nodes != nil && p.nodes.PerPlatform {
		return []string{"--vulns with --compile container needs one BuildKit node for every platform: each PLATFORM=ADDR node pushes its platform by digest before the others' binaries are scanned; use one node, or --compile host"}
	}
	if g.VEX != "" {
		if err := vulns.CheckVEX(g.VEX); err != nil {
			return []string{err.Error()}
		}
	}
	return nil
}

// gate scans the compiled binaries, records the scan in the report and
// refuses (a *vulns.GateError) what the threshold does not let through.
func (b *Resolved) gate(ctx context.Context, rep *report.Report, bins []vulns.Binary, shown *progress.Reporter, stdout io.Writer) error {
	g := b.opt.Vulns
	t0 := time.Now()
	scan, err := vulns.Scan(ctx, vulns.Request{Built: bins, DB: g.DB, VEX: g.VEX, Progress: shown})
	if err != nil {
		return fmt.Errorf("vulnerability gate: %w", err)
	}
	scan.FailOn = g.FailOn
	rep.Vulns = scan
	rep.Time("vulns", time.Since(t0))
	gateErr := scan.Gate(g.FailOn)
	if gateErr != nil {
		if err := vulns.WriteText(stdout, scan, false); err != nil {
			return err
		}
		return gateErr
	}
	writeScanSummary(stdout, scan)
	return nil
}

// writeScanSummary is one line per platform for a scan that passed.
func writeScanSummary(w io.Writer, scan *vulns.Report) {
	for _, t := range scan.Targets {
		c := t.Counts()
		fmt.Fprintf(w, "vulns %s: %d called, %d imported, %d required, %d suppressed (fail-on=%s)\n",
			t.Platform, c.Called, c.Imported, c.Required, c.Suppressed, scan.FailOn)
	}
}

// attachScan attaches the build's scan to the pushed index, naming each
// platform image and the binary it holds.
func attachScan(ctx context.Context, p *plan, rep *report.Report, v *image.Verified, ro image.RegistryOptions, stdout io.Writer) error {
	if rep.Vulns == nil {
		return nil
	}
	var images []attest.PlatformImage
	for _, img := range v.Images {
		images = append(images, attest.PlatformImage{Platform: img.Platform, Digest: img.Digest})
	}
	stmt, err := attest.NewScanStatement(p.repository, v.IndexDigest, "/"+binaryName, images, rep.Vulns, time.Now())
	if err != nil {
		return err
	}
	ref, err := attest.AttachScan(ctx, p.repository, v.IndexDigest, stmt, ro)
	if err != nil {
		return fmt.Errorf("vulnerability scan attestation: %w", err)
	}
	fmt.Fprintf(stdout, "vulnerability scan %s (%s)\n", ref, attest.VulnsPredicate)
	return nil
}

// scanTargets names each compiled binary by its platform.
func scanTargets(paths map[string]string) []vulns.Binary {
	var out []vulns.Binary
	for _, platform := range slices.Sorted(maps.Keys(paths)) {
		out = append(out, vulns.Binary{Name: binaryName + " " + platform, Platform: platform, Path: paths[platform]})
	}
	return out
}
