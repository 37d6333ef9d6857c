package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	gitcache "github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/epp-build/epp-build/internal/gitstore"
	"github.com/epp-build/epp-build/internal/progress"
)

// A pinned ref is fetched with one upload-pack request: one want, depth
// 1, and the pack decoded as it arrives (packreceive.go), so that when the
// last byte lands the cache entry's blob store is already full and only
// the trees remain to be listed. The session is go-git's transport's, so
// every transport it has (http(s), ssh, git, file URLs and local paths,
// the last two served by git's upload-pack) takes this one path; so do
// the upstream history (history.go) and the ref listings. The request
// speaks protocol v0, as go-git's transport does: for a commit pin, the
// server's
// uploadpack.allow*SHA1InWant settings decide whether it hands out a
// commit by hash, and a server that does not is left to
// fetchCommitThroughRefs, which looks for the commit in the history of the
// branches and tags.

// fetchStreamed fills the entry folder tmp with the commit ref names (a
// tag name, a full ref name or the commit's own hash), which must be want.
// On error, nothing it wrote is left in tmp.
func fetchStreamed(ctx context.Context, tmp string, repo remoteRepo, ref, want string, m *entryMeta, p *progress.Reporter, lim gitLimits) error {
	gitDir := filepath.Join(tmp, gitDirName)
	pool, err := newEntryBlobs(tmp, packReaders(gitDir))
	if err != nil {
		return err
	}
	abandon := func(err error) error {
		pool.close()
		os.Remove(filepath.Join(tmp, blobsName))
		os.RemoveAll(gitDir)
		return err
	}
	tip, pack, err := streamPack(ctx, gitDir, repo, ref, pool, p, lim)
	if err != nil {
		return abandon(err)
	}
	s := filesystem.NewStorageWithOptions(osfs.New(gitDir), gitcache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	defer s.Close()
	commit, err := peel(s, tip)
	if err != nil {
		return abandon(fmt.Errorf("ref %s at %s: %w", ref, repo.shown, err))
	}
	if commit.String() != want {
		return abandon(&MismatchError{Ref: ref, Want: want, Got: commit.String(), Repository: repo.shown})
	}
	return buildAroundPack(ctx, tmp, s, tip, commit, pack, m, pool)
}

// streamPack asks repo for the object ref names, at depth 1, and receives
// the pack into gitDir and its blobs into pool, showing the bytes received
// on p. It returns the object asked for (for an annotated tag, the tag)
// and the pack.
func streamPack(ctx context.Context, gitDir string, repo remoteRepo, ref string, pool *blobWriter, p *progress.Reporter, lim gitLimits) (plumbing.Hash, string, error) {
	var none plumbing.Hash
	session, adv, err := openUploadPack(ctx, repo, ref)
	if err != nil {
		return none, "", err
	}
	defer session.Close()
	tip, err := advertisedWant(adv, repo, ref)
	if err != nil {
		return none, "", err
	}
	pack, err := requestPack(ctx, session, adv, packWant{wants: []plumbing.Hash{tip}, depth: 1}, gitDir, repo, ref, pool, p, lim)
	if err != nil {
		return none, "", err
	}
	return tip, pack, nil
}

// openUploadPack opens an upload-pack session with repo and reads the
// refs it advertises; what names the fetch in messages.
func openUploadPack(ctx context.Context, repo remoteRepo, what string) (transport.UploadPackSession, *packp.AdvRefs, error) {
	session, err := uploadPackSession(repo)
	if err != nil {
		return nil, nil, fetchFailed(ctx, err, repo, what)
	}
	adv, err := session.AdvertisedReferencesContext(ctx)
	if err != nil {
		session.Close()
		return nil, nil, fetchFailed(ctx, err, repo, what)
	}
	return session, adv, nil
}

// packWant is what one upload-pack request asks for.
type packWant struct {
	wants []plumbing.Hash
	// haves are commits the receiving store holds with their whole
	// history, so the server leaves out what they reach.
	haves []plumbing.Hash
	// depth is how many commits deep (0: the whole history).
	depth int
	// blobless asks for commits and trees only, when the server can
	// filter (else everything comes).
	blobless bool
}

// requestPack asks the session for w and receives the pack into gitDir
// and its blobs into pool (see receivePack), under lim. It returns the
// pack's name.
func requestPack(ctx context.Context, session transport.UploadPackSession, adv *packp.AdvRefs, w packWant, gitDir string, repo remoteRepo, what string, pool *blobWriter, p *progress.Reporter, lim gitLimits) (string, error) {
	req := packp.NewUploadPackRequestFromCapabilities(adv.Capabilities)
	// A thin pack would hold deltas on objects it does not carry, which
	// receivePack could not resolve: the pack must resolve within itself.
	req.Capabilities.Delete(capability.ThinPack)
	req.Wants = w.wants
	if len(w.haves) > 0 {
		req.Haves = w.haves
		// One round (the request ends with done): without multi_ack the
		// server answers with a single ACK or NAK before the pack.
		req.Capabilities.Delete(capability.MultiACK)
		req.Capabilities.Delete(capability.MultiACKDetailed)
	}
	if w.depth > 0 {
		req.Depth = packp.DepthCommits(w.depth)
		if err := req.Capabilities.Set(capability.Shallow); err != nil {
			return "", err
		}
		ctx = expectShallowLines(ctx)
	}
	if w.blobless && adv.Capabilities.Supports(capability.Filter) {
		if err := req.Capabilities.Set(capability.Filter); err != nil {
			return "", err
		}
		req.Filter = packp.FilterBlobNone()
	}
	if adv.Capabilities.Supports(capability.NoProgress) {
		if err := req.Capabilities.Set(capability.NoProgress); err != nil {
			return "", err
		}
	}
	resp, err := session.UploadPack(ctx, req)
	if err != nil {
		return "", fetchFailed(ctx, err, repo, what)
	}
	defer resp.Close()
	task := p.Start("fetch "+repo.shown, 0)
	defer task.Abort()
	packDir := gitstore.PackDir(gitDir)
	if err := os.MkdirAll(packDir, 0o755); err != nil {
		return "", err
	}
	pack, err := receivePack(ctx, io.TeeReader(demuxed(req.Capabilities, resp), task), packDir, pool, lim)
	var limit *LimitError
	if errors.As(err, &limit) {
		return "", limit
	}
	if err != nil {
		return "", fetchFailed(ctx, err, repo, what)
	}
	task.Done()
	return pack, nil
}

// advertisedWant is the object to ask for: a commit pin's hash, when the
// server hands out commits by hash, else what the server advertises for
// the ref (a tag name is a tag; branches are given as refs/heads/...).
func advertisedWant(adv *packp.AdvRefs, repo remoteRepo, ref string) (plumbing.Hash, error) {
	if fullHash.MatchString(ref) {
		if !adv.Capabilities.Supports(capability.AllowReachableSHA1InWant) && !adv.Capabilities.Supports(capability.AllowTipSHA1InWant) {
			return plumbing.ZeroHash, git.ErrExactSHA1NotSupported
		}
		return plumbing.NewHash(ref), nil
	}
	name := ref
	if !strings.HasPrefix(ref, "refs/") {
		name = plumbing.NewTagReferenceName(ref).String()
	}
	if h, ok := adv.References[name]; ok {
		return h, nil
	}
	return plumbing.ZeroHash, asFetchError(Git, &shownError{msg: fmt.Sprintf("git fetch %s: ref %s does not exist there (check upstream.ref)", repo.shown, ref)})
}

// uploadPackSession opens an upload-pack session with repo through the
// transports of go-git's client (with the deadlines of githttp.go).
func uploadPackSession(repo remoteRepo) (transport.UploadPackSession, error) {
	useGitDeadlines()
	ep, err := transport.NewEndpoint(repo.url)
	if err != nil {
		return nil, err
	}
	c, err := client.NewClient(ep)
	if err != nil {
		return nil, err
	}
	return c.NewUploadPackSession(ep, gitAuth(repo.url))
}

// demuxed is the pack data of an upload-pack response: the side band's
// progress channel is dropped (the bytes received are shown instead) and
// its error channel ends the read with the server's message.
func demuxed(caps *capability.List, r io.Reader) io.Reader {
	switch {
	case caps.Supports(capability.Sideband64k):
		return sideband.NewDemuxer(sideband.Sideband64k, r)
	case caps.Supports(capability.Sideband):
		return sideband.NewDemuxer(sideband.Sideband, r)
	}
	return r
}

// fetchFailed is err described as a failed fetch of want from repo, or the
// context's error when the fetch was cancelled.
func fetchFailed(ctx context.Context, err error, repo remoteRepo, want string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return asFetchError(Git, describeFetchError(err, repo, want))
}
