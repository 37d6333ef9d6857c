package source

import (
	"context"
	"io"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"

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

// A commit pin is fetched with one upload-pack request: one want, depth 1,
// and the pack decoded as it arrives (packreceive.go), so that when the
// last byte lands the cache entry's blob store is already full and only
// the trees remain to be listed. The request speaks protocol v0, as
// go-git's transport does: the server's uploadpack.allow*SHA1InWant
// settings decide whether it hands out a commit by hash, and a server
// that does not is left to fetchCommitThroughRefs, which looks for the
// commit in the history of the branches and tags.

// streamable says whether the streamed fetch takes repo: http(s), and file
// URLs and local paths when git's upload-pack is installed to serve them.
// ssh is left to go-git's fetch.
func streamable(repo string) bool {
	u, err := neturl.Parse(repo)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "http", "https":
		return true
	case "file":
	case "":
		if !filepath.IsAbs(repo) {
			return false
		}
	default:
		return false
	}
	_, err = exec.LookPath("git")
	return err == nil
}

// fetchCommitStreamed fills the entry folder tmp with commit want from
// repo. On error, nothing it wrote is left in tmp.
func fetchCommitStreamed(ctx context.Context, tmp string, repo remoteRepo, want string, m *entryMeta, p *progress.Reporter) (err error) {
	gitDir := filepath.Join(tmp, gitDirName)
	pool, err := newEntryBlobs(tmp, packReaders(gitDir))
	if err != nil {
		return err
	}
	pack, err := streamCommitPack(ctx, gitDir, repo, want, pool, p)
	if err != nil {
		pool.close()
		os.Remove(filepath.Join(tmp, blobsName))
		os.RemoveAll(gitDir)
		return err
	}
	s := filesystem.NewStorageWithOptions(osfs.New(gitDir), gitcache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	defer s.Close()
	return buildAroundPack(ctx, tmp, s, plumbing.NewHash(want), pack, m, pool)
}

// streamCommitPack asks repo for commit want alone, at depth 1, and
// receives the pack into gitDir and its blobs into pool, showing the bytes
// received on p. It returns the pack's name.
func streamCommitPack(ctx context.Context, gitDir string, repo remoteRepo, want string, pool *blobWriter, p *progress.Reporter) (string, error) {
	session, err := uploadPackSession(repo)
	if err != nil {
		return "", asFetchError(Git, describeFetchError(err, repo, want))
	}
	defer session.Close()
	adv, err := session.AdvertisedReferencesContext(ctx)
	if err != nil {
		return "", fetchFailed(ctx, err, repo, want)
	}
	if !adv.Capabilities.Supports(capability.AllowReachableSHA1InWant) && !adv.Capabilities.Supports(capability.AllowTipSHA1InWant) {
		return "", git.ErrExactSHA1NotSupported
	}
	req := packp.NewUploadPackRequestFromCapabilities(adv.Capabilities)
	// Nothing is had, so a thin pack could not be thinner; an unthin one
	// resolves within itself, which receivePack relies on.
	req.Capabilities.Delete(capability.ThinPack)
	req.Wants = []plumbing.Hash{plumbing.NewHash(want)}
	req.Depth = packp.DepthCommits(1)
	if err := req.Capabilities.Set(capability.Shallow); err != nil {
		return "", err
	}
	if adv.Capabilities.Supports(capability.NoProgress) {
		if err := req.Capabilities.Set(capability.NoProgress); err != nil {
			return "", err
		}
	}
	resp, err := session.UploadPack(ctx, req)
	if err != nil {
		return "", fetchFailed(ctx, err, repo, want)
	}
	defer resp.Close()
	task := p.Start("fetch "+repo.shown, 0)
	defer task.Abort()
	packDir := gitstore.PackDir(gitDir)
	if err := os.MkdirAll(packDir, 0o755); err != nil {
		return "", err
	}
	pack, err := receivePack(ctx, io.TeeReader(demuxed(req.Capabilities, resp), task), packDir, pool)
	if err != nil {
		return "", fetchFailed(ctx, err, repo, want)
	}
	task.Done()
	return pack, nil
}

// uploadPackSession opens an upload-pack session with repo through the
// transports go-git's fetch uses (with the deadlines of githttp.go).
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
