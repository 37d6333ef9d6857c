package source

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
)

// Request says which upstream tree to fetch and how.
type Request struct {
	// Pin is the recipe's upstream: repository, ref (tag or commit),
	// expected commit and, optionally, the module version that carries the
	// same tree on the Go module proxy.
	Pin recipe.Upstream
	// Kind selects the source; "" means Auto.
	Kind Kind
	// Upstream overrides Pin.Repository: a git URL, or for Path a local
	// repository folder.
	Upstream string
	// CacheDir is the cache root; "" means os.UserCacheDir()/epp-build.
	CacheDir string
	// Notice receives one-line notices (fallbacks, dropped cache entries);
	// may be nil.
	Notice func(format string, args ...any)
	// Progress shows the bytes of a download as they arrive; nil shows
	// nothing.
	Progress *progress.Reporter
}

// Tree is a verified upstream snapshot held in the cache; read-only for
// callers.
type Tree struct {
	// Commit is the upstream commit the recipe pins (always Pin.Commit).
	Commit string
	// BaseCommit is the commit object in GitDir: Commit for git and path,
	// a synthesized commit for goproxy.
	BaseCommit string
	// Time is the upstream commit time (committer date); for goproxy the
	// proxy's .info Time.
	Time time.Time
	// Via is the source that produced the entry (never Auto), Origin where
	// that source read it (a redacted URL, a folder, or a proxy and
	// module@version) and Fetched when. A cached tree keeps the values of
	// the fetch that filled the cache, whatever the request asked for.
	Via     Kind
	Origin  string
	Fetched time.Time
	// Cached is true when Fetch found the tree in the cache.
	Cached bool
	// GitDir is a bare repository holding BaseCommit, its tree and blobs.
	GitDir string

	entry *entryMeta
	dir   string
	// blobs is the entry's blob store: the contents of BaseCommit's files.
	blobs string
	// req is the request that produced the tree, for fetching it again
	// when Materialize finds the entry damaged.
	req *Request
}

var fullHash = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Fetch returns the verified tree the request pins, from the cache when a
// valid entry exists, otherwise from the selected source.
func Fetch(ctx context.Context, req Request) (*Tree, error) {
	if !fullHash.MatchString(req.Pin.Commit) {
		return nil, fmt.Errorf("upstream commit %q: must be the full 40-hex-digit commit the ref resolves to", req.Pin.Commit)
	}
	kind := req.Kind
	if kind == "" {
		kind = Auto
	}
	c, err := openCache(req.CacheDir, req.notice)
	if err != nil {
		return nil, err
	}
	asked := false
	if kind != Path {
		if asked, err = c.checkRecordedRef(ctx, req); err != nil {
			return nil, err
		}
	}
	var tree *Tree
	switch kind {
	case Git:
		tree, err = fetchGit(ctx, c, req)
	case Path:
		tree, err = fetchPath(ctx, c, req)
	case GoProxy:
		tree, err = fetchGoProxy(ctx, c, req)
	case Auto:
		tree, err = fetchAuto(ctx, c, req)
	default:
		return nil, fmt.Errorf("unknown source kind %q (use auto, git, goproxy or path)", kind)
	}
	if err != nil {
		return nil, err
	}
	// A cold git fetch resolved the tag itself; a warm one asks once. A
	// module proxy tree is pinned by its hash, not by the tag.
	if tree.Cached && tree.Via == Git && req.hasTagPin() && !asked {
		if err := c.confirmTag(ctx, req); err != nil {
			return nil, err
		}
	}
	tree.req = &req
	if err := tree.checkModuleHash(ctx, req.Pin); err != nil {
		return nil, err
	}
	return tree, nil
}

// checkModuleHash checks the recipe's upstream.moduleHash against the
// module zip of the tree, whatever the source: a hash is computed, never
// trusted. A module proxy entry was checked against it when fetched.
func (t *Tree) checkModuleHash(ctx context.Context, pin recipe.Upstream) error {
	if pin.Module == "" || pin.ModuleVersion == "" || pin.ModuleHash == "" || t.Via == GoProxy {
		return nil
	}
	got, err := t.ModuleHash(ctx, pin.Module, pin.ModuleVersion)
	if err != nil {
		return err
	}
	if got != pin.ModuleHash {
		return &ModuleHashError{Module: pin.Module + "@" + pin.ModuleVersion, Want: pin.ModuleHash, Got: got, Commit: t.Commit}
	}
	return nil
}

// fetchAuto tries git and falls back to the module proxy when git cannot be
// reached. A commit mismatch is never papered over by another source.
//
// A valid cache entry from either source is used before any network: a
// warm run must not wait for an unreachable git host to time out.
func fetchAuto(ctx context.Context, c *cache, req Request) (*Tree, error) {
	if tree := c.lookup(ctx, "git-"+req.Pin.Commit, expectation{commit: req.Pin.Commit}); tree != nil {
		return tree, nil
	}
	if req.hasModule() {
		key, want := goProxyKey(req.Pin)
		if tree := c.lookup(ctx, key, want); tree != nil {
			return tree, nil
		}
	}
	tree, err := fetchGit(ctx, c, req)
	if err == nil {
		return tree, nil
	}
	var fe *fetchError
	if !errors.As(err, &fe) || ctx.Err() != nil {
		return nil, err
	}
	if !req.hasModule() {
		return nil, fmt.Errorf("%w (the recipe has no upstream.module, so there is no Go module proxy fallback)", err)
	}
	// One line that names the cause: the whole message repeats the URL
	// and, cut at a fixed width, lost the reason (a host that did not
	// resolve) mid-URL. The module version is in what follows.
	req.notice("git fetch from %s failed (%s); using the Go module proxy", fetchHost(req.repository()), redact.Cause(err, noticeCauseLen))
	return fetchGoProxy(ctx, c, req)
}

// Provenance says truthfully where the tree came from, for messages:
// "via git from URL" for a fresh fetch, "from cache (fetched via path from
// DIR at TIME)" for a cached one.
func (t *Tree) Provenance() string {
	fetched := fmt.Sprintf("via %s from %s", t.Via, t.Origin)
	if !t.Cached {
		return fetched
	}
	return fmt.Sprintf("from cache (fetched %s at %s)", fetched, t.Fetched.UTC().Format(time.RFC3339))
}

// noticeCauseLen is the most characters of an error a one-line notice
// quotes.
const noticeCauseLen = 100

// fetchHost names where a git fetch went in a notice: the host of a URL,
// else the (redacted) repository as given.
func fetchHost(repository string) string {
	if u, err := url.Parse(repository); err == nil && u.Host != "" {
		return redact.Text(u.Host)
	}
	return redact.URL(repository)
}

func (r Request) notice(format string, args ...any) {
	if r.Notice != nil {
		r.Notice(format, args...)
	}
}

// repository is where git and path fetch from.
func (r Request) repository() string {
	if r.Upstream != "" {
		return r.Upstream
	}
	return r.Pin.Repository
}

func (r Request) hasModule() bool {
	return r.Pin.Module != "" && r.Pin.ModuleVersion != "" && r.Pin.ModuleHash != ""
}

// CacheDir is the cache root a Request with CacheDir "" uses:
// os.UserCacheDir()/epp-build.
func CacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder: %w (set --cache-dir or XDG_CACHE_HOME)", err)
	}
	return filepath.Join(base, "epp-build"), nil
}
