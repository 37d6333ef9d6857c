package redact

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestURL(t *testing.T) {
	cases := map[string]string{
		"https://user:secret@host/gaie.git":                         "https://user:xxxxx@host/gaie.git",
		"https://ghp_abcdef123@github.com/o/r.git":                  "https://xxxxx@github.com/o/r.git",
		"https://host/r.git":                                        "https://host/r.git",
		"https://host/a?private_token=abc&ref=main":                 "https://host/a?private_token=xxxxx&ref=main",
		"https://b.s3/x?X-Amz-Credential=AK%2F1&X-Amz-Signature=f0": "https://b.s3/x?X-Amz-Credential=xxxxx&X-Amz-Signature=xxxxx",
		"https://host/x?sig=abc&Token=t&access_token=a":             "https://host/x?sig=xxxxx&Token=xxxxx&access_token=xxxxx",
		"ssh://git@host/r.git":                                      "ssh://git@host/r.git",
		"/local/folder":                                             "/local/folder",
		"file:///srv/gaie":                                          "file:///srv/gaie",
	}
	for in, want := range cases {
		assert.Equal(t, want, URL(in), in)
	}
}

func TestText(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("user:secret"))
	cases := map[string]string{
		"git fetch https://user:secret@127.0.0.1:8080/gaie.git v1 failed": "git fetch https://user:xxxxx@127.0.0.1:8080/gaie.git v1 failed",
		"GOPROXY=https://a,https://u:pw@b|direct":                         "GOPROXY=https://a,https://u:xxxxx@b|direct",
		"Authorization: Basic " + basic:                                   "Authorization: Basic xxxxx",
		`{"Authorization":["Bearer abc.def.ghi"]}`:                        `{"Authorization":["Bearer xxxxx"]}`,
		"echo: basic " + basic + " end":                                   "echo: basic xxxxx end",
		"form password=hunter2&user=me":                                   "form password=xxxxx&user=me",
		"nothing to hide here":                                            "nothing to hide here",
	}
	for in, want := range cases {
		assert.Equal(t, want, Text(in), in)
	}
}

func TestExcerpt(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("user:secret"))
	body := "<html>\n<body>\x1b[31mDenied\r\n Authorization: Basic " + basic + "\n" + strings.Repeat("pad ", 200) + "</body>"
	got := Excerpt([]byte(body))
	assert.NotContains(t, got, basic)
	assert.NotContains(t, got, "\x1b")
	assert.NotContains(t, got, "\n")
	assert.Contains(t, got, `\x1b[31mDenied`)
	assert.LessOrEqual(t, len([]rune(got)), ExcerptLen)
	assert.True(t, strings.HasSuffix(got, "..."))
	assert.Equal(t, "short body", Excerpt([]byte("  short\tbody\n")))
}

func TestStripLeavesNoCredentialToStore(t *testing.T) {
	assert.Equal(t, "https://host/gaie.git", Strip("https://user:secret@host/gaie.git"))
	assert.Equal(t, "https://host/gaie.git", Strip("https://ghp_token@host/gaie.git"))
	assert.Equal(t, "ssh://git@host/gaie.git", Strip("ssh://git:pw@host/gaie.git"))
	assert.Equal(t, "https://host/g.git?ref=main", Strip("https://host/g.git?ref=main&access_token=abc"))
	assert.Equal(t, "https://host/gaie.git", Strip("https://host/gaie.git"))
}
