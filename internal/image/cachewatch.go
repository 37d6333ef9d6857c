package image

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/moby/buildkit/client"

	"github.com/epp-build/epp-build/internal/redact"
)

// CacheExportError means the solve failed while exporting the build cache
// (a --cache-to without ignore-error=true, as buildx fails). The image
// may have been pushed by digest, but nothing was tagged.
type CacheExportError struct {
	Step   string   // the BuildKit step that failed, e.g. "exporting cache to registry"
	Caches []string // the --cache-to destinations, redacted
	Err    error
}

func (e *CacheExportError) Error() string {
	return fmt.Sprintf("cache export to %s failed (%s): %s (nothing was tagged; fix the --cache-to destination, or add ignore-error=true to it to build without exporting the cache)",
		strings.Join(e.Caches, ", "), e.Step, redact.Text(e.Err.Error()))
}

func isCacheExport(err error) bool {
	var ce *CacheExportError
	return errors.As(err, &ce)
}

func describeAll(entries []client.CacheOptionsEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = DescribeCache(e)
	}
	return out
}

func (e *CacheExportError) Unwrap() error { return e.Err }

// cacheImportStep and cacheExportSteps are how BuildKit names its cache
// import and export steps in the solve status.
const cacheImportStep = "importing cache manifest from "

var cacheExportSteps = []string{
	"exporting cache", "exporting inline cache", "exporting to GitHub Actions Cache",
	"preparing build cache for export", "sending cache export",
}

// cacheWatch reads the solve status on its way to the display and notes
// the cache steps that failed: a failed import is a warning (BuildKit
// builds without that cache, as buildx does), a failed export is kept for
// the solve's error.
type cacheWatch struct {
	out    io.Writer
	mu     sync.Mutex
	warned map[string]bool
	export string // first failed export step
}

// watchCache forwards every status from in to the returned channel, which
// closes when in does, printing one warning per failed cache import to out
// whatever the progress mode.
func watchCache(in chan *client.SolveStatus, out io.Writer) (chan *client.SolveStatus, *cacheWatch) {
	w := &cacheWatch{out: outOrDiscard(out), warned: map[string]bool{}}
	fwd := make(chan *client.SolveStatus)
	go func() {
		defer close(fwd)
		for st := range in {
			w.note(st)
			fwd <- st
		}
	}()
	return fwd, w
}

func (w *cacheWatch) note(st *client.SolveStatus) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, v := range st.Vertexes {
		if v.Error == "" || w.warned[v.Name] {
			continue
		}
		if from, ok := strings.CutPrefix(v.Name, cacheImportStep); ok {
			w.warned[v.Name] = true
			fmt.Fprintf(w.out, "warning: cache import from %s failed, building without it: %s\n", redact.URL(from), redact.Text(v.Error))
			continue
		}
		for _, p := range cacheExportSteps {
			if strings.HasPrefix(v.Name, p) {
				w.warned[v.Name] = true
				if w.export == "" {
					w.export = v.Name
				}
				fmt.Fprintf(w.out, "warning: %s failed: %s\n", v.Name, redact.Text(v.Error))
				break
			}
		}
	}
}

// exportFailed names the cache export step that failed, "" if none.
func (w *cacheWatch) exportFailed() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.export
}
