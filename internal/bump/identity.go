package bump

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// identLine is what `git var GIT_AUTHOR_IDENT` prints: name, email, Unix
// time and zone.
var identLine = regexp.MustCompile(`^(.*) <([^<>]*)> ([0-9]+) ([+-])([0-9]{2})([0-9]{2})$`)

// Author is the user's git identity as git itself works it out for a
// commit made in dir: GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL and
// GIT_AUTHOR_DATE first, then user.name and user.email of the repository
// and the user's configuration. Asking git, not reading its files, keeps
// every rule git has (includes, conditional includes, user.useConfigOnly).
func Author(ctx context.Context, dir string) (object.Signature, error) {
	cmd := exec.CommandContext(ctx, "git", "var", "GIT_AUTHOR_IDENT")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			msg := strings.TrimSpace(string(exit.Stderr))
			return object.Signature{}, &UsageError{fmt.Errorf("the patch needs an author and git has none: set user.name and user.email (git config --global), or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL: %s", firstLine(msg))}
		}
		return object.Signature{}, fmt.Errorf("ask git for the author: %w", err)
	}
	return parseIdent(strings.TrimSpace(string(out)))
}

func parseIdent(line string) (object.Signature, error) {
	m := identLine.FindStringSubmatch(line)
	if m == nil || strings.TrimSpace(m[1]) == "" || m[2] == "" {
		return object.Signature{}, &UsageError{fmt.Errorf("git's author identity %q is not \"Name <email>\": set user.name and user.email", line)}
	}
	secs, err := strconv.ParseInt(m[3], 10, 64)
	if err != nil {
		return object.Signature{}, fmt.Errorf("git's author date in %q: %w", line, err)
	}
	hours, _ := strconv.Atoi(m[5])
	minutes, _ := strconv.Atoi(m[6])
	offset := hours*3600 + minutes*60
	if m[4] == "-" {
		offset = -offset
	}
	zone := time.FixedZone(m[4]+m[5]+m[6], offset)
	return object.Signature{Name: m[1], Email: m[2], When: time.Unix(secs, 0).In(zone)}, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
