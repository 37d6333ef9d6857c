// Package gitfixture builds small, deterministic git repositories for tests
// with the git CLI, and serves them over HTTP through git http-backend.
package gitfixture

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/testenv"
)

// Author is the identity of every fixture commit and annotated tag.
const (
	AuthorName  = "Fixture Author"
	AuthorEmail = "fixture@example.invalid"
)

// baseTime is the date of the first fixture commit; each later commit is one
// minute after the previous one, so hashes are the same on every run.
var baseTime = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// Repo is a non-bare repository in a temporary folder.
type Repo struct {
	// Dir is the work tree; Dir/.git holds the repository.
	Dir string
	// ticks counts commits and tags, to give each a distinct, fixed date.
	ticks int
}

// New creates an empty repository (branch main) in a fresh temporary folder.
func New(t testing.TB) *Repo {
	t.Helper()
	return NewAt(t, filepath.Join(t.TempDir(), "upstream"))
}

// NewAt creates an empty repository in dir, which must not exist yet. Use it
// to put several repositories under one root for ServeHTTP.
func NewAt(t testing.TB, dir string) *Repo {
	t.Helper()
	testenv.Tool(t, "git", "fixture repositories are built with the git CLI")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Repo{Dir: dir}
	r.Git(t, "init", "--quiet", "--initial-branch=main", dir)
	return r
}

// Env is the environment fixture git commands run with: no user or system
// configuration, fixed identity.
func Env() []string {
	env := append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME="+AuthorName,
		"GIT_AUTHOR_EMAIL="+AuthorEmail,
		"GIT_COMMITTER_NAME="+AuthorName,
		"GIT_COMMITTER_EMAIL="+AuthorEmail,
		"GIT_TERMINAL_PROMPT=0",
	)
	return env
}

// Git runs git in the work tree and returns its trimmed standard output.
func (r *Repo) Git(t testing.TB, args ...string) string {
	t.Helper()
	out, err := r.run(nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (r *Repo) run(extraEnv []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	if _, err := os.Stat(r.Dir); err == nil {
		cmd.Dir = r.Dir
	}
	cmd.Env = append(Env(), extraEnv...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// nextDate returns the fixed date for the next commit or tag.
func (r *Repo) nextDate() []string {
	d := baseTime.Add(time.Duration(r.ticks) * time.Minute).Format(time.RFC3339)
	r.ticks++
	return []string{"GIT_AUTHOR_DATE=" + d, "GIT_COMMITTER_DATE=" + d}
}

// Commit writes files (path -> content; "" deletes the path), stages every
// change in the work tree (including those made with WriteExec and Symlink)
// and commits. It returns the new commit's hash.
func (r *Repo) Commit(t testing.TB, msg string, files map[string]string) string {
	t.Helper()
	for path, content := range files {
		full := filepath.Join(r.Dir, filepath.FromSlash(path))
		if content == "" {
			if err := os.RemoveAll(full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		r.write(t, full, []byte(content), 0o644)
	}
	r.Git(t, "add", "--all")
	if _, err := r.run(r.nextDate(), "commit", "--quiet", "--allow-empty", "--no-verify", "-m", msg); err != nil {
		t.Fatal(err)
	}
	return r.Git(t, "rev-parse", "HEAD")
}

// WriteExec writes an executable file (mode 755) for the next Commit.
func (r *Repo) WriteExec(t testing.TB, path, content string) {
	t.Helper()
	full := filepath.Join(r.Dir, filepath.FromSlash(path))
	r.write(t, full, []byte(content), 0o755)
	if err := os.Chmod(full, 0o755); err != nil {
		t.Fatal(err)
	}
}

// WriteBytes writes a file with arbitrary (binary) content for the next Commit.
func (r *Repo) WriteBytes(t testing.TB, path string, content []byte) {
	t.Helper()
	r.write(t, filepath.Join(r.Dir, filepath.FromSlash(path)), content, 0o644)
}

// Symlink creates a symbolic link path -> target for the next Commit.
func (r *Repo) Symlink(t testing.TB, path, target string) {
	t.Helper()
	full := filepath.Join(r.Dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(full)
	if err := os.Symlink(target, full); err != nil {
		t.Fatal(err)
	}
}

func (r *Repo) write(t testing.TB, full string, content []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, content, mode); err != nil {
		t.Fatal(err)
	}
}

// Tag creates tag name at target (a commit hash or any revision).
func (r *Repo) Tag(t testing.TB, name, target string, annotated bool) {
	t.Helper()
	r.tag(t, name, target, annotated, false)
}

// MoveTag points an existing tag at another target, as an upstream that
// re-tags a release would.
func (r *Repo) MoveTag(t testing.TB, name, target string, annotated bool) {
	t.Helper()
	r.tag(t, name, target, annotated, true)
}

func (r *Repo) tag(t testing.TB, name, target string, annotated, force bool) {
	t.Helper()
	args := []string{"tag"}
	if force {
		args = append(args, "--force")
	}
	if annotated {
		args = append(args, "--annotate", "--message", "release "+name)
	}
	args = append(args, name, target)
	if _, err := r.run(r.nextDate(), args...); err != nil {
		t.Fatal(err)
	}
}

// RevParse resolves a revision to a full hash (tags are peeled to commits
// when rev ends in ^{commit}).
func (r *Repo) RevParse(t testing.TB, rev string) string {
	t.Helper()
	return r.Git(t, "rev-parse", "--verify", "--quiet", rev)
}

// AllowFetchBySHA lets clients fetch any reachable commit by its hash, as
// GitHub does; without it git-upload-pack (protocol v0) refuses such wants.
func (r *Repo) AllowFetchBySHA(t testing.TB) {
	t.Helper()
	r.Git(t, "config", "uploadpack.allowReachableSHA1InWant", "true")
}

// FileURL is the repository's file:// URL.
func (r *Repo) FileURL() string {
	return "file://" + filepath.ToSlash(r.Dir)
}

// HTTPURL is the repository's URL under a base returned by ServeHTTP for a
// root that holds it directly.
func (r *Repo) HTTPURL(base string) string {
	return strings.TrimSuffix(base, "/") + "/" + filepath.Base(r.Dir)
}
