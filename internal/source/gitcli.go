package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	gitcache "github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/epp-build/epp-build/internal/netclient"
	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/redact"
)

// A commit pin is fetched with the git CLI when it is installed: one want,
// depth 1, and git's own index-pack, which indexes the pack several times
// faster than go-git and shows progress as it goes. The fetch speaks
// protocol v0 on purpose: a protocol v2 upload-pack hands out any object
// id it has, even one no branch or tag reaches, while v0 lets the server's
// uploadpack.allow*SHA1InWant settings decide, so a server that refuses
// unreachable wants still refuses them and go-git's path (which then looks
// for the commit in the history of the branches and tags) takes over, as
// it does for tags and branches, for URLs the CLI path does not take, and
// whenever the CLI fails.

// errNoGitCLI is the CLI path declining: no git, or a URL it leaves to
// go-git.
var errNoGitCLI = errors.New("the git CLI is not used for this fetch")

// cliFetchable says whether the git CLI path takes repo: http(s), file
// URLs and local paths. ssh is left to go-git, which never prompts.
func cliFetchable(repo string) bool {
	if _, err := exec.LookPath("git"); err != nil {
		return false
	}
	u, err := neturl.Parse(repo)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "http", "https", "file":
		return true
	case "":
		return filepath.IsAbs(repo)
	}
	return false
}

// fetchCommitWithGit fetches commit want from repo at depth 1 into the
// bare git dir gitDir (which must not exist) as one kept pack, showing the
// bytes received on p. It returns the pack's name.
func fetchCommitWithGit(ctx context.Context, gitDir string, repo remoteRepo, want string, p *progress.Reporter) (string, error) {
	if !cliFetchable(repo.url) {
		return "", errNoGitCLI
	}
	if _, err := runGit(ctx, "", nil, nil, "init", "-q", "--bare", "--template=", gitDir); err != nil {
		return "", err
	}
	stall := netclient.DefaultStall
	if t, err := netclient.FromEnv(); err == nil {
		stall = t.Stall
	}
	var task *progress.Task
	if p != nil {
		task = p.Start("fetch "+repo.shown, 0)
		defer task.Abort()
	}
	args := []string{
		"-c", "protocol.version=0",
		// One pack as received, indexed by git: buildAroundPack reads it.
		"-c", "fetch.unpackLimit=1", "-c", "transfer.unpackLimit=1",
		"-c", "gc.auto=0", "-c", "maintenance.auto=false",
		// A server that stops sending fails the fetch after the stall
		// deadline, as go-git's transport does.
		"-c", "http.lowSpeedLimit=1", "-c", "http.lowSpeedTime=" + strconv.Itoa(max(1, int(stall/time.Second))),
		"-c", "credential.helper=",
		"fetch", "--depth", "1", "--no-tags", "--progress", "--", repo.url, want + ":" + pinRef,
	}
	if _, err := runGit(ctx, gitDir, progressWriter(task), []string{"GIT_DIR=" + gitDir}, args...); err != nil {
		return "", fmt.Errorf("git fetch %s %s: %w", repo.shown, want, err)
	}
	task.Done()
	s := filesystem.NewStorageWithOptions(osfs.New(gitDir), gitcache.NewObjectLRUDefault(), filesystem.Options{})
	defer s.Close()
	ref, err := s.Reference(pinRef)
	if err != nil || ref.Hash() != plumbing.NewHash(want) {
		return "", fmt.Errorf("git fetch %s %s: the server sent no such commit", repo.shown, want)
	}
	return onlyPack(gitDir)
}

// runGit runs git with its progress (stderr) copied to progressOut when
// set; the error holds git's last words, redacted.
func runGit(ctx context.Context, dir string, progressOut *gitProgress, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "LC_ALL=C"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if progressOut != nil {
		progressOut.tail = &stderr
		cmd.Stderr = progressOut
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil {
		return "", &shownError{msg: redact.Excerpt(lastLines(stderr.Bytes())), err: err}
	}
	return stdout.String(), nil
}

// lastLines is git's error without its progress lines.
func lastLines(b []byte) []byte {
	var keep [][]byte
	for _, l := range bytes.FieldsFunc(b, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if bytes.HasPrefix(l, []byte("remote: ")) && bytes.Contains(l, []byte("objects:")) || bytes.Contains(l, []byte("Receiving objects")) || bytes.Contains(l, []byte("Resolving deltas")) {
			continue
		}
		keep = append(keep, bytes.TrimSpace(l))
	}
	return bytes.Join(keep, []byte("; "))
}

// gitProgress turns git's "Receiving objects: 45% (450/1000), 8.00 MiB |
// 4.00 MiB/s" lines into bytes on a progress task, and keeps the rest.
type gitProgress struct {
	task *progress.Task
	seen int64
	buf  []byte
	tail *bytes.Buffer
}

func progressWriter(task *progress.Task) *gitProgress {
	return &gitProgress{task: task}
}

var receivedBytes = regexp.MustCompile(`Receiving objects: .*?, ([0-9.]+) (bytes|KiB|MiB|GiB)`)

func (g *gitProgress) Write(p []byte) (int, error) {
	if g.tail != nil {
		g.tail.Write(p)
	}
	g.buf = append(g.buf, p...)
	for {
		i := bytes.IndexAny(g.buf, "\r\n")
		if i < 0 {
			break
		}
		g.line(string(g.buf[:i]))
		g.buf = g.buf[i+1:]
	}
	return len(p), nil
}

func (g *gitProgress) line(l string) {
	m := receivedBytes.FindStringSubmatch(l)
	if m == nil {
		return
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return
	}
	unit := map[string]float64{"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m[2]]
	if n := int64(v * unit); n > g.seen {
		g.task.Add(n - g.seen)
		g.seen = n
	}
}

// fetchCommitPin is fetchPackInto's CLI path for a commit pin. done is
// false when the CLI path declined or failed before the entry was built:
// the git dir is gone again and go-git's fetch takes over.
func fetchCommitPin(ctx context.Context, tmp, gitDir string, repo remoteRepo, want string, m *entryMeta, p *progress.Reporter) (done bool, err error) {
	pack, err := fetchCommitWithGit(ctx, gitDir, repo, want, p)
	if err != nil {
		os.RemoveAll(gitDir)
		return false, err
	}
	s := filesystem.NewStorageWithOptions(osfs.New(gitDir), gitcache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	defer s.Close()
	return true, buildAroundPack(ctx, tmp, s, plumbing.NewHash(want), pack, m)
}
