package redact

import (
	"encoding/base64"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTextMasksUserinfoWithoutScheme: an image or cache reference may
// carry USER:PASS@ with no scheme in front; the password is masked and the
// rest of the reference kept so the message still names it.
func TestTextMasksUserinfoWithoutScheme(t *testing.T) {
	cases := map[string]string{
		"alice:s3cret@registry.example/repo:tag":                            "alice:xxxxx@registry.example/repo:tag",
		`image reference "alice:s3cret@host/repo:tag": bad`:                 `image reference "alice:xxxxx@host/repo:tag": bad`,
		"type=registry,ref=alice:s3cret@host/repo:cache,mode=max":           "type=registry,ref=alice:xxxxx@host/repo:cache,mode=max",
		"alice:s3cret@127.0.0.1:5000/repo":                                  "alice:xxxxx@127.0.0.1:5000/repo",
		"could not parse reference: alice:s3cret@registry.example":          "could not parse reference: alice:xxxxx@registry.example",
		"alice:p@ss:w0rd@registry.example/repo":                             "alice:xxxxx@registry.example/repo",
		"git:s3cret@github.com:org/repo.git":                                "git:xxxxx@github.com:org/repo.git",
		"alice:s3cret@[::1]:5000/repo":                                      "alice:xxxxx@[::1]:5000/repo",
		"push to alice:s3cret@localhost/repo failed":                        "push to alice:xxxxx@localhost/repo failed",
		"GOPROXY=https://u:pw@b,bob:pw2@proxy.example/mod":                  "GOPROXY=https://u:xxxxx@b,bob:xxxxx@proxy.example/mod",
		"already masked alice:xxxxx@registry.example/repo stays as it is":   "already masked alice:xxxxx@registry.example/repo stays as it is",
		"https://alice:s3cret@registry.example/v2/ and alice:s3cret@h.io/r": "https://alice:xxxxx@registry.example/v2/ and alice:xxxxx@h.io/r",
	}
	for in, want := range cases {
		assert.Equal(t, want, Text(in), in)
	}
}

// TestTextKeepsOrdinaryText: the scheme-less rule must not touch digests,
// tags, SCP-style git URLs or prose. The git@ of an SCP URL is a login
// name, not a secret (the key is elsewhere), so it is kept.
func TestTextKeepsOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"registry.example/repo:v1.2@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"nginx:1.25@sha256:abc",
		"digest sha256:abc@registry.example/repo",
		"git@github.com:org/repo.git",
		"fetch git@github.com:org/repo.git v1.0.0 failed",
		"ssh://git@github.com/org/repo.git",
		"image:tag",
		"the ratio a:b is 2:1, see note@top",
		"step 3:4@build",
		"mailto:bob@example.com",
		"registry.example/repo:tag",
	} {
		assert.Equal(t, s, Text(s), s)
	}
}

// TestSecretsMaskEveryForm: a server's error body may repeat a credential
// the client sent as the bare secret, as user:secret, inside a URL or as
// the Basic header's base64; all of them are masked once registered.
func TestSecretsMaskEveryForm(t *testing.T) {
	var s Secrets
	s.Add("bob", "tr0ub4dor&3")
	basic := base64.StdEncoding.EncodeToString([]byte("bob:tr0ub4dor&3"))
	cases := map[string]string{
		"bad password tr0ub4dor&3 for bob":             "bad password xxxxx for bob",
		"denied bob:tr0ub4dor&3":                       "denied bob:xxxxx",
		"you sent " + basic:                            "you sent xxxxx",
		"see http://bob:tr0ub4dor%263@host/x":          "see http://bob:xxxxx@host/x",
		"escaped tr0ub4dor%263":                        "escaped xxxxx",
		"nothing of bob's here":                        "nothing of bob's here",
		"Authorization: Basic " + basic + " was wrong": "Authorization: Basic xxxxx was wrong",
	}
	for in, want := range cases {
		assert.Equal(t, want, s.Text(in), in)
	}
}

// TestSecretsIgnoreShortValues: masking "ab" everywhere would garble
// every message without hiding anything worth hiding.
func TestSecretsIgnoreShortValues(t *testing.T) {
	var s Secrets
	s.Add("u", "ab")
	assert.Equal(t, "a label about u", s.Text("a label about u"))
}

// TestRememberAppliesToTheOneRule: a registered secret is masked by Text,
// URL and Excerpt, so callers need no replaces of their own.
func TestRememberAppliesToTheOneRule(t *testing.T) {
	Remember("carol", "remembered-s3cret")
	basic := base64.StdEncoding.EncodeToString([]byte("carol:remembered-s3cret"))
	assert.Equal(t, "proxy said: no such user carol:xxxxx", Text("proxy said: no such user carol:remembered-s3cret"))
	assert.Equal(t, "https://host/xxxxx/x", URL("https://host/remembered-s3cret/x"))
	got := Excerpt([]byte("401\nremembered-s3cret\n" + basic))
	assert.Equal(t, "401 xxxxx xxxxx", got)
}

// TestErrorKeepsTheChain: a redacted error still answers errors.Is.
func TestErrorKeepsTheChain(t *testing.T) {
	cause := errors.New("could not parse reference: alice:s3cret@registry.example/repo:tag")
	err := Error(fmt.Errorf("read: %w", cause))
	assert.Equal(t, "read: could not parse reference: alice:xxxxx@registry.example/repo:tag", err.Error())
	assert.ErrorIs(t, err, cause)
	assert.NoError(t, Error(nil))
}
