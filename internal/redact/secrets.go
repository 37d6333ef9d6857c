package redact

import (
	"encoding/base64"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// MinSecretLen is the shortest secret Remember masks in free text: a
// shorter one cannot be told apart from ordinary words, and masking every
// occurrence of it would garble the message without hiding anything.
const MinSecretLen = 4

// Secrets is a set of credentials the process knows it sent (URL userinfo,
// netrc, GOPROXY userinfo, registry logins). A server that answers with an
// error body may repeat them in any shape (user:secret, the bare secret,
// the Basic header's base64), which no pattern can recognise; knowing the
// values is the only way to mask them.
type Secrets struct {
	mu sync.RWMutex
	// values holds every form to mask, longest first so that user:secret
	// and its base64 are replaced before the secret inside them.
	values []replacement
	seen   map[string]bool
}

// replacement is one registered form and what it becomes: user:secret
// keeps the user, as URL does.
type replacement struct{ from, to string }

// known is the process's set: Text, URL and Excerpt apply it, so every
// message that goes through the one rule masks what was registered.
var known Secrets

// Remember registers a credential the process sends (user may be empty)
// with the set that Text, URL and Excerpt mask.
func Remember(user, secret string) { known.Add(user, secret) }

// Add registers secret, user:secret, their URL-escaped forms and the
// base64 basic-auth form of user:secret.
func (s *Secrets) Add(user, secret string) {
	if len(secret) < MinSecretLen {
		return
	}
	var forms []replacement
	for _, f := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret),
		base64.StdEncoding.EncodeToString([]byte(secret)), base64.RawStdEncoding.EncodeToString([]byte(secret)),
		// a token sent as the user name alone goes out as Basic "token:"
		base64.StdEncoding.EncodeToString([]byte(secret + ":"))} {
		forms = append(forms, replacement{f, Mask})
	}
	if user != "" {
		pair := user + ":" + secret
		forms = append(forms,
			replacement{pair, user + ":" + Mask},
			replacement{url.UserPassword(user, secret).String(), url.User(user).String() + ":" + Mask},
			replacement{base64.StdEncoding.EncodeToString([]byte(pair)), Mask},
			replacement{base64.RawStdEncoding.EncodeToString([]byte(pair)), Mask})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	for _, f := range forms {
		if len(f.from) >= MinSecretLen && !s.seen[f.from] {
			s.seen[f.from] = true
			s.values = append(s.values, f)
		}
	}
	sort.SliceStable(s.values, func(i, j int) bool { return len(s.values[i].from) > len(s.values[j].from) })
}

// mask replaces every registered form in text with Mask.
func (s *Secrets) mask(text string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, v := range s.values {
		if strings.Contains(text, v.from) {
			text = strings.ReplaceAll(text, v.from, v.to)
		}
	}
	return text
}

// Text is the one rule (see the package function Text) with the secrets
// of s masked as well as the process's.
func (s *Secrets) Text(text string) string { return Text(s.mask(text)) }
