package redact

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCauseKeepsTheInnermostEndOfALongChain(t *testing.T) {
	dns := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nonexistent.invalid", IsNotFound: true}}
	get := fmt.Errorf("Get %q: %w", "https://user:hunter22@nonexistent.invalid/"+strings.Repeat("x", 80)+".git/info/refs?service=git-upload-pack", dns)
	err := fmt.Errorf("git fetch https://nonexistent.invalid/%s.git 7c1f1994dbff: %w", strings.Repeat("x", 80), get)

	got := Cause(err, 100)
	assert.Equal(t, "dial tcp: lookup nonexistent.invalid: no such host", got, "the outermost error that fits, which names the host that did not resolve")

	assert.Equal(t, "lookup nonexistent.invalid: no such host", Cause(err, 45))
	short := Cause(err, 20)
	assert.Equal(t, "...lid: no such host", short, "nothing fits: the innermost error's end")
	assert.LessOrEqual(t, len([]rune(short)), 20)

	whole := Cause(err, 1000)
	assert.Contains(t, whole, "git fetch https://nonexistent.invalid/", "a chain that fits is shown whole")
	assert.NotContains(t, whole, "hunter22", "credentials are masked")
}

func TestCauseSkipsAnExitStatus(t *testing.T) {
	exit := exec.Command("false").Run()
	var ee *exec.ExitError
	require.ErrorAs(t, exit, &ee)
	git := &wrapped{msg: "git fetch: fatal: unable to access 'https://h.invalid/r.git/': Could not resolve host: h.invalid", err: exit}
	err := fmt.Errorf("fetch the history of https://h.invalid/r.git up to 206d40dca75d, 7c1f1994dbff: %w", git)

	assert.Equal(t, git.msg, Cause(err, 120), "what git said, not exit status 1")
	assert.Equal(t, "...Could not resolve host: h.invalid", Cause(err, 36))
}

func TestCauseIsOneEscapedLine(t *testing.T) {
	got := Cause(errors.New("server said:\n\x1b[31mno\x1b[0m  way"), 100)
	assert.Equal(t, `server said: \x1b[31mno\x1b[0m way`, got)
	assert.Empty(t, Cause(nil, 100))
}

// wrapped is an error whose text replaces its cause's, as the source
// stage's errors that quote git's stderr do.
type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }
