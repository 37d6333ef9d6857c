package source

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/netclient"
	"github.com/epp-build/epp-build/internal/redact"
)

// History is a local copy of an upstream's commits and trees, without
// file contents (a partial clone, --filter=blob:none): enough to say
// whether a commit is an ancestor of a pin and which commits between two
// pins touch a file, at a fraction of a full clone's size. It is kept in
// the cache and fetched into incrementally; it needs the git CLI.
type History struct {
	dir   string
	shown string
}

// Commit is one upstream commit: hash and subject.
type Commit struct {
	Hash    string `json:"commit"`
	Subject string `json:"subject"`
}

// OpenHistory makes sure the history cache for repository holds each
// of commits and their ancestry, fetching what it lacks.
func OpenHistory(ctx context.Context, cacheDir, repository string, commits ...string) (*History, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("reading upstream history needs the git CLI: %w", err)
	}
	if cacheDir == "" {
		d, err := CacheDir()
		if err != nil {
			return nil, err
		}
		cacheDir = d
	}
	h := historyAt(cacheDir, repository)
	shown := h.shown
	if _, err := os.Stat(filepath.Join(h.dir, "HEAD")); err != nil {
		if err := os.MkdirAll(h.dir, 0o755); err != nil {
			return nil, err
		}
		if _, err := h.git(ctx, "init", "-q", "--bare"); err != nil {
			return nil, err
		}
	}
	var missing []string
	for _, c := range commits {
		if c == "" || h.has(ctx, c) {
			continue
		}
		missing = append(missing, c)
	}
	if len(missing) == 0 {
		return h, nil
	}
	if _, err := h.git(ctx, fetchArgs(repository, missing...)...); err != nil {
		return nil, fmt.Errorf("fetch the history of %s up to %s: %w", shown, strings.Join(shortAll(missing), ", "), err)
	}
	return h, nil
}

// fetchArgs is the git command line that fetches refspecs of repository
// into a history: commits and trees only.
func fetchArgs(repository string, refspecs ...string) []string {
	stall := netclient.DefaultStall
	if t, err := netclient.FromEnv(); err == nil {
		stall = t.Stall
	}
	// A server that stops sending fails the fetch after the stall
	// deadline, as every other fetch does.
	return append([]string{"-c", "protocol.version=2", "-c", "credential.helper=", "-c", "gc.auto=0",
		"-c", "http.lowSpeedLimit=1", "-c", "http.lowSpeedTime=" + strconv.Itoa(max(1, int(stall/time.Second))),
		"fetch", "-q", "--no-tags", "--filter=blob:none", "--", repository}, refspecs...)
}

// historyAt is the history of repository in the cache under cacheDir,
// whether or not anything was fetched into it yet.
func historyAt(cacheDir, repository string) *History {
	key := sha256.Sum256([]byte(redact.Strip(repository)))
	return &History{dir: filepath.Join(cacheDir, "history", hex.EncodeToString(key[:8])), shown: redact.URL(repository)}
}

func shortAll(commits []string) []string {
	out := make([]string, len(commits))
	for i, c := range commits {
		out[i] = gitformat.Short(c)
	}
	return out
}

func (h *History) has(ctx context.Context, commit string) bool {
	_, err := h.git(ctx, "cat-file", "-e", commit+"^{commit}")
	return err == nil
}

// IsAncestor says whether commit is in the history of pin (commit itself
// included). A commit the history does not know is not an ancestor.
func (h *History) IsAncestor(ctx context.Context, commit, pin string) (bool, error) {
	if !h.has(ctx, commit) {
		return false, nil
	}
	_, err := h.git(ctx, "merge-base", "--is-ancestor", commit, pin)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return false, nil
	}
	return err == nil, err
}

// Between lists the commits reachable from to but not from from that
// change any of paths, newest first (all commits between them when paths
// is empty).
func (h *History) Between(ctx context.Context, from, to string, paths []string) ([]Commit, error) {
	args := []string{"log", "--format=%H%x00%s", from + ".." + to}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	out, err := h.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	var commits []Commit
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if hash, subject, ok := strings.Cut(line, "\x00"); ok {
			commits = append(commits, Commit{Hash: hash, Subject: subject})
		}
	}
	return commits, nil
}

// git runs git in the history's folder; its error says what git said,
// redacted.
func (h *History) git(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), "GIT_DIR="+h.dir, "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &shownError{msg: fmt.Sprintf("git %s: %s", subcommand(args), redact.Excerpt(bytes.TrimSpace(stderr.Bytes()))), err: err}
	}
	return stdout.String(), nil
}

// subcommand is the git command args run, past any -c options.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return ""
}
