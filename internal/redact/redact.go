// Package redact is the one rule for showing or storing anything that may
// carry a credential: URLs (userinfo, token query parameters), free text
// that mentions URLs, scheme-less USER:PASS@HOST references or
// Authorization headers, and server response bodies. Credentials the
// process knows it sends are registered with Remember, and the same rule
// masks them in any form a server repeats them.
//
// A login without a password is not a secret: ssh://git@host and the
// SCP-style git@host:org/repo.git keep it, so the message still says
// which account was used. Over http(s) a lone user name is masked, since
// there it is usually a token.
package redact

import (
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/epp-build/epp-build/internal/textsafe"
)

// Mask replaces every hidden value.
const Mask = "xxxxx"

// secretParams are query parameter names (lower case) whose values are
// credentials: API tokens, signed-URL signatures and credentials, passwords.
var secretParams = map[string]bool{
	"token": true, "access_token": true, "private_token": true, "refresh_token": true,
	"id_token": true, "auth": true, "auth_token": true, "api_key": true, "apikey": true,
	"key": true, "password": true, "passwd": true, "pass": true, "secret": true,
	"client_secret": true, "sig": true, "signature": true,
	"x-amz-signature": true, "x-amz-credential": true, "x-amz-security-token": true,
	"x-goog-signature": true, "x-goog-credential": true,
}

// URL returns raw with its userinfo and credential query parameters masked:
// user:password@ becomes user:xxxxx@, a lone user (often a token) becomes
// xxxxx@ over http(s). Something that does not parse as a URL is treated as text.
func URL(raw string) string {
	if masked, ok := maskURL(raw); ok {
		return known.mask(masked)
	}
	return Text(raw)
}

// Strip returns raw without its userinfo and credential query parameters,
// for a URL that is written somewhere to be used again (a recipe, a
// trailer): a masked credential would not work, and the real one must not
// be stored; the credential then comes from netrc or a credential helper.
// Something that does not parse as an absolute URL is returned as URL
// would mask it.
func Strip(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return URL(raw)
	}
	if u.User != nil && (u.Scheme == "http" || u.Scheme == "https") {
		u.User = nil
	} else if u.User != nil {
		u.User = url.User(u.User.Username()) // ssh: keep the login, drop a password
	}
	if u.RawQuery != "" {
		var kept []string
		for _, p := range strings.Split(u.RawQuery, "&") {
			name, _, _ := strings.Cut(p, "=")
			if un, err := url.QueryUnescape(name); err == nil {
				name = un
			}
			if !secretParams[strings.ToLower(name)] {
				kept = append(kept, p)
			}
		}
		u.RawQuery = strings.Join(kept, "&")
	}
	return u.String()
}

// maskURL is URL for something that parses as an absolute URL; ok is false
// otherwise.
func maskURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return raw, false
	}
	changed := false
	if u.User != nil {
		// Over HTTP a lone user name is usually a token (https://TOKEN@host);
		// over ssh it is the login (git@host).
		if _, ok := u.User.Password(); ok {
			u.User, changed = url.UserPassword(u.User.Username(), Mask), true
		} else if u.Scheme == "http" || u.Scheme == "https" {
			u.User, changed = url.User(Mask), true
		}
	}
	if u.RawQuery != "" {
		if q, ok := maskQuery(u.RawQuery); ok {
			u.RawQuery, changed = q, true
		}
	}
	if !changed {
		return raw, true
	}
	return u.String(), true
}

// maskQuery masks the values of credential parameters, keeping the order
// and spelling of everything else.
func maskQuery(q string) (string, bool) {
	parts := strings.Split(q, "&")
	changed := false
	for i, p := range parts {
		name, _, hasValue := strings.Cut(p, "=")
		if un, err := url.QueryUnescape(name); err == nil {
			name = un
		}
		if hasValue && secretParams[strings.ToLower(name)] {
			parts[i] = p[:strings.IndexByte(p, '=')+1] + Mask
			changed = true
		}
	}
	return strings.Join(parts, "&"), changed
}

var (
	// urlInText is a URL inside free text; list separators (",", "|") end it
	// so that a GOPROXY list is redacted entry by entry.
	urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>,|]+`)
	// userinfoInText catches userinfo that urlInText could not isolate.
	userinfoInText = regexp.MustCompile(`(://[^/@:,|\s]*):[^/@,|\s]*@`)
	// authValue is an Authorization header value or a bare credential
	// scheme followed by its token (what a server echoing headers shows).
	authValue   = regexp.MustCompile(`(?i)((?:proxy-)?authorization["']?\s*[:=]\s*\[?["']?)(?:(basic|bearer|token|digest|negotiate)\s+)?[^\s"',;\]}]+`)
	schemeValue = regexp.MustCompile(`(?i)\b(basic|bearer)\s+[A-Za-z0-9+/=._~-]{6,}`)
	// bareUserinfo is USER:PASS@HOST with no scheme in front, as in an
	// image reference (alice:pw@registry.example/repo:tag) or a BuildKit
	// cache ref. The password may hold "@" (the last one before a host
	// wins) but not "/", so repo:tag@sha256:... is not read as one; the
	// host is checked in maskBareUserinfo. A ":" may follow the host, for
	// the SCP-style git user:pass@host:org/repo.git.
	bareUserinfo = regexp.MustCompile(`([^\s"'<>,|=(\[/@:]+):([^\s"'<>,|/]+)@(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*)(:[0-9]+)?([/:\s"'<>,|)\]]|$)`)
	// paramInText is name=value outside a URL (a form body, a log line).
	paramInText = regexp.MustCompile(`(?i)\b(access_token|private_token|refresh_token|id_token|auth_token|client_secret|api_key|apikey|token|password|passwd|secret|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)=[^&\s"',;]+`)
)

// notUserinfo are the words before a colon that make USER:PASS@HOST
// something else: a digest algorithm (sha256:abc@...) or a mail link.
var notUserinfo = map[string]bool{"sha256": true, "sha384": true, "sha512": true, "blake3": true, "mailto": true}

// maskBareUserinfo masks the password of a scheme-less USER:PASS@HOST when
// HOST looks like a registry or git host: it has a dot or a port, or a
// path follows it. A lone USER@HOST is kept: without a scheme that is the
// SCP-style git login (git@github.com:org/repo.git), a name, not a secret.
func maskBareUserinfo(s string) string {
	return bareUserinfo.ReplaceAllStringFunc(s, func(m string) string {
		sub := bareUserinfo.FindStringSubmatch(m)
		user, pass, host, port, next := sub[1], sub[2], sub[3], sub[4], sub[5]
		if notUserinfo[strings.ToLower(user)] || notUserinfo[strings.ToLower(host)] || pass == Mask {
			return m
		}
		if !strings.ContainsAny(host, ".[") && port == "" && next != "/" {
			return m
		}
		return user + ":" + Mask + "@" + host + port + next
	})
}

// Text masks every credential the rules recognise in s: known secrets (see
// Remember), URLs, scheme-less USER:PASS@HOST, Authorization values, bare
// Basic/Bearer tokens and credential parameters.
func Text(s string) string {
	s = known.mask(s)
	s = urlInText.ReplaceAllStringFunc(s, func(u string) string {
		masked, _ := maskURL(u)
		return masked
	})
	s = userinfoInText.ReplaceAllString(s, "${1}:"+Mask+"@")
	s = maskBareUserinfo(s)
	s = authValue.ReplaceAllStringFunc(s, func(m string) string {
		sub := authValue.FindStringSubmatch(m)
		if sub[2] != "" {
			return sub[1] + sub[2] + " " + Mask
		}
		return sub[1] + Mask
	})
	s = schemeValue.ReplaceAllString(s, "${1} "+Mask)
	return paramInText.ReplaceAllString(s, "${1}="+Mask)
}

// ExcerptLen is the most characters of a server body a message shows.
const ExcerptLen = 200

// Excerpt turns a server's response body into something safe to show: one
// line, control characters escaped, credentials masked, at most ExcerptLen
// characters.
func Excerpt(body []byte) string {
	s := strings.Join(strings.Fields(known.mask(strings.ToValidUTF8(string(body), "\uFFFD"))), " ")
	s = Text(textsafe.Escape(s))
	if utf8.RuneCountInString(s) > ExcerptLen {
		r := []rune(s)
		s = string(r[:ExcerptLen-3]) + "..."
	}
	return s
}

// Error returns err with its text passed through Text, for an error whose
// text was written by someone else (a library, a server) and may quote a
// credential; errors.Is and errors.As still reach err.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{err: err}
}

type redactedError struct{ err error }

func (e *redactedError) Error() string { return Text(e.err.Error()) }
func (e *redactedError) Unwrap() error { return e.err }
