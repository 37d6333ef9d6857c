package source

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/epp-build/epp-build/internal/netclient"
	"github.com/epp-build/epp-build/internal/redact"
)

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
// Every transport takes the one streamed path (gitstream.go).
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
		err := fetchStreamed(ctx, tmp, repo, req.Pin.Ref, want, m, req.Progress, lim)
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

// describeFetchError names the repository and ref. The transport's text
// may quote the server's response body, so it is shown only as a redacted
// one-line excerpt; the cause stays reachable for errors.Is.
func describeFetchError(err error, repo remoteRepo, ref string) error {
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
