package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/exporter/containerimage/exptypes"
	"github.com/moby/buildkit/session"
	"github.com/tonistiigi/fsutil"
	"golang.org/x/sync/errgroup"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/redact"
)

// SolveOptions describe one multi-platform image solve.
type SolveOptions struct {
	ContextDir string // build context; holds the Dockerfile
	Dockerfile string // file name inside ContextDir ("" = Dockerfile)
	Target     string // optional stage
	Platforms  []string
	BuildArgs  map[string]string
	// Repository is where the image is pushed by digest (no tag): tagging
	// happens only after verification.
	Repository string
	Push       bool
	// OCITar, when set, also writes the index as an OCI tarball.
	OCITar string
	// ImageName names the image inside the OCI tarball.
	ImageName       string
	Insecure        bool
	SourceDateEpoch time.Time
	Progress        progress.Mode
	Out             io.Writer
	Keychain        authn.Keychain
	// Attestations are BuildKit attestation frontend attributes without
	// their "attest:" prefix, e.g. provenance=mode=max, sbom=generator=REF
	// (an empty value is BuildKit's default).
	Attestations map[string]string
	// Retries is how many times a registry 5xx is retried (default 3).
	Retries int
	Backoff time.Duration // first delay, doubled each time (default 1s)
	// CacheImports and CacheExports are the --cache-from and --cache-to
	// entries (see ParseCache).
	CacheImports, CacheExports []client.CacheOptionsEntry
	// Contexts are named local build contexts (COPY --from=NAME).
	Contexts map[string]NamedContext
	// Prepare, when set, runs in the solve's session before the final
	// target (see gateway.go); its error is returned as it is.
	Prepare PrepareFunc
	// Secrets are served to the solve's session by id, for RUN
	// --mount=type=secret (fetchsteps.go); never written anywhere.
	Secrets map[string][]byte
	// Node is the daemon's address, for messages.
	Node string
	// Labels are image config labels (the Dockerfile frontend's label:KEY).
	Labels map[string]string
	// Annotations are exporter attributes annotation-TYPE.KEY (see
	// ParseAnnotations), given to every exporter.
	Annotations map[string]string
	// Compression is the pushed layers' compression ("" is BuildKit's
	// gzip; "zstd" is written at level 1, several times faster for a
	// large image such as a builder).
	Compression string
}

// SolveResult is what the solve exported.
type SolveResult struct {
	Digest   string // index digest
	Attempts int
}

// Solve runs the solve, retrying when the registry answers 5xx: BuildKit's
// cache makes a retry cost only the push.
func Solve(ctx context.Context, c *client.Client, opt SolveOptions) (*SolveResult, error) {
	if !opt.Push && opt.OCITar == "" {
		return nil, errors.New("nothing to export: push to a registry and/or write an OCI tarball")
	}
	retries := opt.Retries
	if retries == 0 {
		retries = 3
	}
	backoff := opt.Backoff
	if backoff == 0 {
		backoff = time.Second
	}
	registry := strings.SplitN(opt.Repository, "/", 2)[0]
	for attempt := 1; ; attempt++ {
		res, err := solveOnce(ctx, c, opt)
		if err == nil {
			res.Attempts = attempt
			return res, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("image solve cancelled: %w", ctx.Err())
		}
		if fe := (*FetchError)(nil); errors.As(err, &fe) {
			return nil, fe // a fetch inside the solve, not the registry: not retried
		}
		if nodeGone(ctx, c, err) {
			return nil, &NodeGoneError{Addr: opt.Node, Err: err}
		}
		if pe := (*prepareError)(nil); errors.As(err, &pe) {
			return nil, pe.err
		}
		if isCacheExport(err) {
			return nil, redact.Error(err) // names the cache's own registry (its ref may carry userinfo); not retried, as buildx
		}
		err = classify(registry, attempt, err)
		if !retryable(err) || attempt > retries {
			return nil, err
		}
		fmt.Fprintf(outOrDiscard(opt.Out), "registry %s failed (attempt %d), retrying in %s\n", registry, attempt, backoff)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return nil, fmt.Errorf("image solve cancelled: %w", ctx.Err())
		}
		backoff *= 2
	}
}

func outOrDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func solveOnce(ctx context.Context, c *client.Client, opt SolveOptions) (*SolveResult, error) {
	ctxFS, err := fsutil.NewFS(opt.ContextDir)
	if err != nil {
		return nil, fmt.Errorf("build context %s: %w", opt.ContextDir, err)
	}
	dockerfile := opt.Dockerfile
	if dockerfile == "" {
		dockerfile = "Dockerfile"
	}
	attrs := map[string]string{
		"filename": dockerfile,
		"platform": strings.Join(opt.Platforms, ","),
		// An index even for one platform: BuildKit would export a lone
		// manifest, and verify, smoke and tag all read an index.
		"multi-platform": "true",
	}
	if opt.Target != "" {
		attrs["target"] = opt.Target
	}
	for k, v := range opt.Attestations {
		attrs["attest:"+k] = v
	}
	for k, v := range opt.BuildArgs {
		attrs["build-arg:"+k] = v
	}
	for k, v := range opt.Labels {
		attrs["label:"+k] = v
	}
	epoch := ""
	if !opt.SourceDateEpoch.IsZero() {
		epoch = strconv.FormatInt(opt.SourceDateEpoch.Unix(), 10)
		attrs["build-arg:SOURCE_DATE_EPOCH"] = epoch
	}

	var exports []client.ExportEntry
	var tar ociTar
	if opt.OCITar != "" {
		a := map[string]string{}
		if opt.ImageName != "" {
			a[string(exptypes.OptKeyName)] = opt.ImageName
		}
		addEpoch(a, epoch)
		maps.Copy(a, opt.Annotations)
		exports = append(exports, client.ExportEntry{Type: client.ExporterOCI, Attrs: a,
			Output: func(map[string]string) (io.WriteCloser, error) { return tar.create(opt.OCITar) }})
	}

	// The image exporter goes last: BuildKit merges the exporters'
	// responses in order, and with attestations the tarball's index can
	// differ from the pushed one (provenance is written per exporter), so
	// the digest returned must be the pushed index's.
	if opt.Push {
		a := map[string]string{
			string(exptypes.OptKeyName):         opt.Repository,
			string(exptypes.OptKeyPush):         "true",
			string(exptypes.OptKeyPushByDigest): "true",
			string(exptypes.OptKeyOCITypes):     "true",
		}
		if opt.Insecure {
			a[string(exptypes.OptKeyInsecure)] = "true"
		}
		if opt.Compression != "" {
			a[string(exptypes.OptKeyLayerCompression)] = opt.Compression
			a[string(exptypes.OptKeyForceCompression)] = "true"
			if opt.Compression == "zstd" {
				a[string(exptypes.OptKeyCompressionLevel)] = "1"
			}
		}
		addEpoch(a, epoch)
		maps.Copy(a, opt.Annotations)
		exports = append(exports, client.ExportEntry{Type: client.ExporterImage, Attrs: a})
	}
	solveOpt := client.SolveOpt{
		Frontend:      dockerfileFrontend,
		FrontendAttrs: attrs,
		LocalMounts:   map[string]fsutil.FS{"context": ctxFS, "dockerfile": ctxFS},
		Exports:       exports,
		Session:       append([]session.Attachable{authAttachable(opt.Keychain)}, secretsAttachable(opt.Secrets)...),
		CacheImports:  opt.CacheImports,
		CacheExports:  opt.CacheExports,
	}
	if err := addNamedContexts(&solveOpt, opt.Contexts); err != nil {
		return nil, err
	}
	ch := make(chan *client.SolveStatus)
	cached, cw := watchCache(ch, opt.Out)
	shown, fw := watchFetch(cached)
	var resp *client.SolveResponse
	eg, ectx := errgroup.WithContext(ctx)
	eg.Go(func() error {
		var err error
		resp, err = solveWith(ectx, c, solveOpt, opt.Prepare, ch)
		return err
	})
	eg.Go(func() error { return display(ctx, opt.Progress, opt.Out, shown) })
	if err := eg.Wait(); err != nil {
		tar.abort()
		if fe := fw.explain(err); fe != nil {
			return nil, fe
		}
		if step := cw.exportFailed(); step != "" {
			return nil, &CacheExportError{Step: step, Caches: describeAll(opt.CacheExports), Err: err}
		}
		return nil, err
	}
	if opt.OCITar != "" {
		if err := tar.commit(); err != nil {
			return nil, fmt.Errorf("OCI tarball %s: %w", opt.OCITar, err)
		}
	}
	dgst := resp.ExporterResponse[exptypes.ExporterImageDigestKey]
	if dgst == "" {
		return nil, fmt.Errorf("BuildKit returned no image digest (exporter response keys: %v)", keys(resp.ExporterResponse))
	}
	return &SolveResult{Digest: dgst}, nil
}

// ociTar is the OCI exporter's tarball while BuildKit streams it: the
// path keeps what it held until the solve succeeds, so a failed or killed
// build never leaves a truncated tarball under the name.
type ociTar struct {
	mu sync.Mutex
	f  *atomicfile.File
}

func (t *ociTar) create(path string) (io.WriteCloser, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f != nil {
		t.f.Abort()
	}
	t.f = f
	return tarWriter{f}, nil
}

func (t *ociTar) abort() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f != nil {
		t.f.Abort()
	}
}

func (t *ociTar) commit() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return errors.New("BuildKit did not export it")
	}
	return t.f.Commit()
}

// tarWriter lets BuildKit close the stream when it has written it all;
// the file is committed only once the whole solve has succeeded.
type tarWriter struct{ *atomicfile.File }

func (tarWriter) Close() error { return nil }

func addEpoch(a map[string]string, epoch string) {
	if epoch != "" {
		a[string(exptypes.OptKeySourceDateEpoch)] = epoch
		a[string(exptypes.OptKeyRewriteTimestamp)] = "true"
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
