package source

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	gitcache "github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/epp-build/epp-build/internal/filetree"
	"github.com/epp-build/epp-build/internal/gitstore"
	"github.com/epp-build/epp-build/internal/netclient"
	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/redact"
)

// pinRef is where a commit pin lands in the fetch's scratch storage.
const pinRef = "refs/epp-build/pin"

// remoteRepo is a git URL to fetch from and the redacted form every
// message, notice and stored file uses instead: the URL may carry
// credentials (user:token@), which only the transport may see.
type remoteRepo struct {
	url, shown string
}

func newRemoteRepo(url string) remoteRepo {
	rememberUserinfo(url)
	return remoteRepo{url: url, shown: redact.URL(url)}
}

// rememberUserinfo registers the credentials in raw's userinfo with the
// one redaction rule: the server may repeat them in its error body in
// any shape, and only their values can be recognised there. Over http(s)
// a lone user name is the token; elsewhere it is a login.
func rememberUserinfo(raw string) {
	u, err := neturl.Parse(raw)
	if err != nil || u.User == nil {
		return
	}
	if password, ok := u.User.Password(); ok {
		redact.Remember(u.User.Username(), password)
	} else if u.Scheme == "http" || u.Scheme == "https" {
		redact.Remember("", u.User.Username())
	}
}

// fetchGit fetches exactly the pinned ref, one commit deep, and caches it.
func fetchGit(ctx context.Context, c *cache, req Request) (*Tree, error) {
	if req.repository() == "" {
		return nil, errors.New("no upstream repository: set upstream.repository in the recipe or pass an upstream URL")
	}
	repo := newRemoteRepo(req.repository())
	want := req.Pin.Commit
	lim, err := gitLimitsFromEnv()
	if err != nil {
		return nil, err
	}
	return c.get(ctx, "git-"+want, expectation{commit: want}, func(ctx context.Context, tmp string) (*entryMeta, error) {
		ctx, cancel := context.WithTimeoutCause(ctx, lim.fetchTime, fetchTimeLimit(lim.fetchTime))
		defer cancel()
		ctx, budget := withGitBudget(ctx, lim)
		m := &entryMeta{Via: Git, Commit: want, Origin: repo.shown, Ref: req.Pin.Ref}
		err := fetchPackInto(ctx, tmp, repo, req.Pin.Ref, want, m, req.Progress, lim)
		var moved *MismatchError
		switch {
		case err == nil:
			c.recordRef(repo.shown, req.Pin.Ref, want)
		case errors.As(err, &moved):
			c.recordRef(repo.shown, req.Pin.Ref, moved.Got)
		}
		if errors.Is(err, git.ErrExactSHA1NotSupported) && fullHash.MatchString(req.Pin.Ref) {
			err = fetchCommitThroughRefs(ctx, tmp, repo, want, m, req.Progress, lim)
		}
		if err != nil {
			return nil, overLimit(ctx, budget, err, repo)
		}
		return m, nil
	})
}

// overLimit is err, or the *LimitError behind it (naming repo) when the
// fetch went over a limit: the transport's breach reaches go-git's callers
// flattened into text, and the time limit as the context's end.
func overLimit(ctx context.Context, budget *gitBudget, err error, repo remoteRepo) error {
	e, ok := limitCause(ctx)
	if !ok {
		e = budget.exceeded()
	}
	if e == nil && !errors.As(err, &e) {
		return err
	}
	named := *e
	named.Server = repo.shown
	return &named
}

// fetchPackInto fetches ref at depth 1 straight into the entry's own git
// dir, so the server's pack (already compressed and delta-encoded) is kept
// as received instead of being decoded into memory and packed again.
func fetchPackInto(ctx context.Context, tmp string, repo remoteRepo, ref, want string, m *entryMeta, p *progress.Reporter, lim gitLimits) error {
	if (ref == want || !fullHash.MatchString(ref)) && streamable(repo.url) {
		return fetchStreamed(ctx, tmp, repo, ref, want, m, p, lim)
	}
	gitDir := filepath.Join(tmp, gitDirName)
	s := filesystem.NewStorageWithOptions(osfs.New(gitDir), gitcache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	defer s.Close()
	watched, task := watchFetch(s, p, repo.shown)
	defer task.Abort()
	tip, got, err := shallowFetch(ctx, watched, repo, ref)
	if err != nil {
		return err
	}
	task.Done()
	if got.String() != want {
		return &MismatchError{Ref: ref, Want: want, Got: got.String(), Repository: repo.shown}
	}
	pack, err := onlyPack(gitDir)
	if err != nil {
		return fmt.Errorf("git fetch %s %s: %w", repo.shown, ref, err)
	}
	pool, err := newEntryBlobs(tmp, packReaders(gitDir))
	if err != nil {
		return err
	}
	return buildAroundPack(ctx, tmp, s, tip, got, pack, m, pool)
}

// shallowFetch fetches ref (a tag name, a full ref name or a full commit
// hash) at depth 1 into s and returns the object it names and the commit
// that is, tags peeled. Failures to talk to the server or find the ref are
// fetchErrors.
func shallowFetch(ctx context.Context, s storage.Storer, repo remoteRepo, ref string) (tip, commit plumbing.Hash, err error) {
	var spec config.RefSpec
	var local plumbing.ReferenceName
	switch {
	case fullHash.MatchString(ref):
		local = pinRef
		spec = config.RefSpec(ref + ":" + pinRef)
	case strings.HasPrefix(ref, "refs/"):
		local = plumbing.ReferenceName(ref)
		spec = config.RefSpec("+" + ref + ":" + ref)
	default:
		local = plumbing.NewTagReferenceName(ref)
		spec = config.RefSpec("+" + local.String() + ":" + local.String())
	}
	var none plumbing.Hash
	if err := fetchSpecs(ctx, s, repo, ref, 1, spec); err != nil {
		return none, none, err
	}
	r, err := s.Reference(local)
	if err != nil {
		return none, none, asFetchError(Git, fmt.Errorf("git fetch %s %s: the server sent no %s", repo.shown, ref, local))
	}
	commit, err = peel(s, r.Hash())
	if err != nil {
		return none, none, fmt.Errorf("ref %s at %s: %w", ref, repo.shown, err)
	}
	return r.Hash(), commit, nil
}

// fetchSpecs runs one fetch of specs into s (depth 0: full history).
func fetchSpecs(ctx context.Context, s storage.Storer, repo remoteRepo, what string, depth int, specs ...config.RefSpec) error {
	useGitDeadlines()
	if depth > 0 {
		ctx = expectShallowLines(ctx)
	}
	remote := git.NewRemote(s, &config.RemoteConfig{Name: "origin", URLs: []string{repo.url}})
	err := remote.FetchContext(ctx, &git.FetchOptions{
		RemoteName: "origin",
		RefSpecs:   specs,
		Depth:      depth,
		Tags:       git.NoTags,
		Auth:       gitAuth(repo.url),
	})
	if err == nil || errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return asFetchError(Git, describeFetchError(err, repo, what))
}

// describeFetchError names the repository and ref. The transport's text
// may quote the server's response body, so it is shown only as a redacted
// one-line excerpt; the cause stays reachable for errors.Is.
func describeFetchError(err error, repo remoteRepo, ref string) error {
	var noRef git.NoMatchingRefSpecError
	if u, perr := neturl.Parse(repo.url); perr == nil && u.Host != "" {
		err = netclient.Describe("git server", u.Host, err)
	}
	msg := fmt.Sprintf("git fetch %s %s: %s", repo.shown, ref, redact.Excerpt([]byte(err.Error())))
	var timeout *netclient.TimeoutError
	if errors.As(err, &timeout) {
		// Whole: the fix is at its end.
		msg = fmt.Sprintf("git fetch %s %s: %s", repo.shown, ref, redact.Text(err.Error()))
	}
	if hint := credentialsHint(err, repo.url); hint != "" {
		msg += " (" + hint + ")"
	}
	if errors.As(err, &noRef) {
		msg = fmt.Sprintf("git fetch %s: ref %s does not exist there (check upstream.ref): %s", repo.shown, ref, redact.Excerpt([]byte(err.Error())))
	}
	return &shownError{msg: msg, err: err}
}

// credentialsHint says where credentials for repo come from when the
// server refused the request for want of them (401) or refused it (403).
func credentialsHint(err error, repo string) string {
	u, perr := neturl.Parse(repo)
	if perr != nil || u.Host == "" {
		return ""
	}
	where := "a netrc entry for " + u.Hostname() + " ($NETRC, else ~/.netrc)"
	sent := ""
	switch {
	case u.User != nil:
		sent = "the credentials in the URL"
	case gitAuth(repo) != nil:
		sent = "the credentials of the netrc entry for " + u.Hostname()
	}
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired) && sent != "":
		return "the git server refused " + sent
	case errors.Is(err, transport.ErrAuthenticationRequired):
		return "the git server wants credentials: " + where
	case errors.Is(err, transport.ErrAuthorizationFailed) && sent == "":
		return "if the git server needs credentials: " + where
	}
	return ""
}

// shownError shows msg (already redacted) while keeping err for errors.Is
// and errors.As.
type shownError struct {
	msg string
	err error
}

func (e *shownError) Error() string { return e.msg }
func (e *shownError) Unwrap() error { return e.err }

// onlyPack names the one pack a fetch into an empty git dir wrote.
func onlyPack(gitDir string) (string, error) {
	packs, err := filetree.Glob(gitstore.PackDir(gitDir), "pack-*.pack")
	if err != nil {
		return "", err
	}
	if len(packs) != 1 {
		return "", fmt.Errorf("the server sent %d packs, expected one", len(packs))
	}
	name := strings.TrimSuffix(filepath.Base(packs[0]), ".pack")
	if _, err := os.Stat(filepath.Join(gitstore.PackDir(gitDir), name+".idx")); err != nil {
		return "", fmt.Errorf("pack %s has no index: %w", name, err)
	}
	return name, nil
}
