package backport

import (
	"fmt"
	"time"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"

	"github.com/epp-build/epp-build/internal/patchset"
)

// A plain diff (Dynamo ships its epp-patches as `git diff` output) has no
// author, date or subject; --author, --date and --subject give them, and
// without them the pick falls back to the identity git would commit with
// here, the current time and the file's name.

// plainHeader makes the header of the plain diff name from opt. used is
// set when it ran, so flags meant for a plain diff are not ignored
// silently on a file that has its own header.
func plainHeader(opt PickOptions, used *bool) patchset.PlainHeader {
	return func(name string) (*gitdiff.PatchHeader, error) {
		*used = true
		author, err := plainAuthor(name, opt)
		if err != nil {
			return nil, err
		}
		when := time.Now().UTC().Truncate(time.Second)
		if opt.Date != "" {
			if when, err = parseDate(opt.Date); err != nil {
				return nil, &UsageError{fmt.Errorf("--date %q: %w", opt.Date, err)}
			}
		}
		subject := opt.Subject
		if subject == "" {
			subject = "Apply " + name
		}
		if err := plainText(name, "--subject", subject); err != nil {
			return nil, err
		}
		return &gitdiff.PatchHeader{Author: &author, AuthorDate: when, Title: subject}, nil
	}
}

func plainAuthor(name string, opt PickOptions) (gitdiff.PatchIdentity, error) {
	value, field := opt.Author, "--author"
	if value == "" {
		user, email := gitIdentity(opt.ConfigDir)
		if user == "" || email == "" {
			return gitdiff.PatchIdentity{}, &UsageError{fmt.Errorf("a plain diff has no author: give --author \"Name <email>\" (git has no user.name and user.email configured here)")}
		}
		value, field = user+" <"+email+">", "user.name/user.email"
	}
	if err := plainText(name, field, value); err != nil {
		return gitdiff.PatchIdentity{}, err
	}
	id, err := gitdiff.ParsePatchIdentity(value)
	if err != nil || id.Name == "" || id.Email == "" {
		return gitdiff.PatchIdentity{}, &UsageError{fmt.Errorf("%s %q: want \"Name <email>\"", field, value)}
	}
	return id, nil
}

// gitIdentity is user.name and user.email as git would read them in dir's
// repository (its own config over the user's), or the user's alone
// outside a repository.
func gitIdentity(dir string) (name, email string) {
	var cfg *config.Config
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err == nil {
		cfg, err = repo.ConfigScoped(config.GlobalScope)
	}
	if err != nil {
		if cfg, err = config.LoadConfig(config.GlobalScope); err != nil {
			return "", ""
		}
	}
	return cfg.User.Name, cfg.User.Email
}

// parseDate takes RFC 3339 and the formats git's --date prints.
func parseDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, dateInRange(t)
	}
	t, err := gitdiff.ParsePatchDate(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("want RFC 3339 (2026-03-04T05:06:07+05:30) or a git date (\"2026-03-04 05:06:07 +0530\", RFC 2822)")
	}
	return t, dateInRange(t)
}

// headerFlagsUnused refuses --author, --date and --subject for a patch
// file with its own header: they would be ignored.
func headerFlagsUnused(opt PickOptions, src string) error {
	for _, f := range []struct{ name, value string }{{"--author", opt.Author}, {"--date", opt.Date}, {"--subject", opt.Subject}} {
		if f.value != "" {
			return &UsageError{fmt.Errorf("%s is for plain diffs; %s has its own author, date and subject", f.name, src)}
		}
	}
	return nil
}
