package source

import (
	"time"

	"github.com/epp-build/epp-build/internal/redact"
)

// Upstream is the provenance of an upstream tree, made once here by the
// source stage and carried unchanged by every later stage: the applied
// tree's record, the build's input and its report. Its JSON is the
// upstream part of applied.json.
type Upstream struct {
	// Repository is where the tree was read, credentials masked: the
	// --upstream URL or folder when one was given, or the proxy and
	// module@version.
	Repository string `json:"repository"`
	// Ref is the recipe's ref for the pinned commit.
	Ref            string    `json:"ref"`
	UpstreamCommit string    `json:"upstreamCommit"`
	UpstreamTime   time.Time `json:"upstreamTime"` // the build's SOURCE_DATE_EPOCH
	Via            string    `json:"via"`          // a Kind, never Auto
	// Provenance says where the copy came from, for messages ("from cache
	// (fetched via git from URL at TIME)").
	Provenance string `json:"provenance,omitempty"`
}

// Upstream is the tree's provenance. A cached tree keeps the origin of the
// fetch that filled the cache; the ref is the one this fetch asked for.
func (t *Tree) Upstream() Upstream {
	u := Upstream{Repository: redact.URL(t.Origin), UpstreamCommit: t.Commit, UpstreamTime: t.Time, Via: string(t.Via),
		Provenance: t.Provenance()}
	if t.req != nil {
		u.Ref = t.req.Pin.Ref
	}
	return u
}
