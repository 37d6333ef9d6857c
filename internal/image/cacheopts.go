package image

import (
	"encoding/csv"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/moby/buildkit/client"

	"github.com/epp-build/epp-build/internal/redact"
)

// Cache directions: where a --cache-from or --cache-to value is used.
const (
	CacheImport = "import"
	CacheExport = "export"
)

// cacheTypes are the BuildKit cache backends a value may name; registry,
// local and inline are checked here, the cloud ones are passed to
// BuildKit as given.
var cacheTypes = []string{"registry", "local", "inline", "gha", "s3", "azblob"}

// CacheOptionError is a --cache-from or --cache-to value that cannot work.
type CacheOptionError struct {
	Direction string // import or export
	Value     string // redacted
	Reason    string
}

func (e *CacheOptionError) Error() string {
	flag := "--cache-from"
	if e.Direction == CacheExport {
		flag = "--cache-to"
	}
	// Reason may quote a field of the value (a ref with user:pass@).
	return redact.Text(fmt.Sprintf("%s %q: %s", flag, e.Value, e.Reason))
}

// ParseCache turns --cache-from (direction import) or --cache-to (export)
// values into BuildKit cache entries. Each value is buildx's CSV syntax,
// type=registry,ref=HOST/REPO:TAG[,mode=max][,ignore-error=true],
// type=local,src=DIR (import) or dest=DIR (export), type=inline; a value
// with no "=" is a registry ref (type=registry,ref=VALUE), as in buildx.
// With insecure, registry entries talk plain HTTP to their registry
// (registry.insecure=true) unless the value says otherwise.
func ParseCache(values []string, direction string, insecure bool) ([]client.CacheOptionsEntry, error) {
	var out []client.CacheOptionsEntry
	for _, v := range values {
		e, err := parseCacheEntry(v, direction, insecure)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func parseCacheEntry(value, direction string, insecure bool) (client.CacheOptionsEntry, error) {
	bad := func(format string, args ...any) error {
		return &CacheOptionError{Direction: direction, Value: redact.Text(value), Reason: fmt.Sprintf(format, args...)}
	}
	value = strings.TrimSpace(value)
	if value == "" {
		return client.CacheOptionsEntry{}, bad("empty value")
	}
	attrs := map[string]string{}
	if !strings.Contains(value, "=") {
		attrs["type"], attrs["ref"] = "registry", value
	} else {
		fields, err := csv.NewReader(strings.NewReader(value)).Read()
		if err != nil {
			return client.CacheOptionsEntry{}, bad("not comma-separated key=value pairs: %v", err)
		}
		for _, f := range fields {
			k, v, ok := strings.Cut(f, "=")
			k = strings.ToLower(strings.TrimSpace(k))
			if !ok || k == "" {
				return client.CacheOptionsEntry{}, bad("%q is not key=value", f)
			}
			if _, dup := attrs[k]; dup {
				return client.CacheOptionsEntry{}, bad("%s given twice", k)
			}
			attrs[k] = v
		}
	}
	typ := attrs["type"]
	delete(attrs, "type")
	if typ == "" {
		return client.CacheOptionsEntry{}, bad("no type= (use %s)", strings.Join(cacheTypes, ", "))
	}
	if !slices.Contains(cacheTypes, typ) {
		return client.CacheOptionsEntry{}, bad("unknown cache type %q (use %s)", typ, strings.Join(cacheTypes, ", "))
	}
	if m, ok := attrs["mode"]; ok && m != "min" && m != "max" {
		return client.CacheOptionsEntry{}, bad("mode=%s: use min or max", m)
	}
	if ie, ok := attrs["ignore-error"]; ok && ie != "true" && ie != "false" {
		return client.CacheOptionsEntry{}, bad("ignore-error=%s: use true or false", ie)
	}
	switch typ {
	case "registry":
		if attrs["ref"] == "" {
			return client.CacheOptionsEntry{}, bad("type=registry needs ref=REGISTRY/REPO:TAG")
		}
		if _, set := attrs["registry.insecure"]; insecure && !set {
			attrs["registry.insecure"] = "true"
		}
	case "local":
		key := "src"
		if direction == CacheExport {
			key = "dest"
		}
		if attrs[key] == "" {
			return client.CacheOptionsEntry{}, bad("type=local needs %s=DIR", key)
		}
	case "gha":
		if err := addActionsEnv(attrs); err != nil {
			return client.CacheOptionsEntry{}, bad("%v", err)
		}
	case "inline":
		if direction == CacheImport {
			return client.CacheOptionsEntry{}, bad("type=inline is only for --cache-to; import an inline cache with --cache-from REGISTRY/REPO:TAG")
		}
	}
	return client.CacheOptionsEntry{Type: typ, Attrs: attrs}, nil
}

// DescribeCache names a cache entry for messages: its type and where it
// lives, with any credential masked.
func DescribeCache(e client.CacheOptionsEntry) string {
	for _, k := range []string{"ref", "src", "dest", "url", "name", "bucket"} {
		if v := e.Attrs[k]; v != "" {
			return e.Type + " " + redact.URL(v)
		}
	}
	return e.Type
}

// CacheForPlatform returns the entries for one platform's own node when
// each platform builds on its own BuildKit: a registry ref's tag and a
// local folder get the platform as a suffix (ref:buildcache ->
// ref:buildcache-linux-arm64, DIR -> DIR/linux-arm64), so the nodes do not
// overwrite each other's cache; a gha entry's scope gets the suffix too.
// Other types are returned unchanged.
func CacheForPlatform(entries []client.CacheOptionsEntry, platform string) []client.CacheOptionsEntry {
	suffix := strings.ReplaceAll(platform, "/", "-")
	var out []client.CacheOptionsEntry
	for _, e := range entries {
		attrs := maps.Clone(e.Attrs)
		switch e.Type {
		case "registry":
			attrs["ref"] = refWithTagSuffix(attrs["ref"], suffix)
		case "gha":
			scope := attrs["scope"]
			if scope == "" {
				scope = "buildkit" // BuildKit's default scope
			}
			attrs["scope"] = scope + "-" + suffix
		case "local":
			for _, k := range []string{"src", "dest"} {
				if attrs[k] != "" {
					attrs[k] = strings.TrimRight(attrs[k], "/") + "/" + suffix
				}
			}
		}
		out = append(out, client.CacheOptionsEntry{Type: e.Type, Attrs: attrs})
	}
	return out
}

// refWithTagSuffix appends -suffix to ref's tag (latest when it has none);
// a ref by digest is returned unchanged.
func refWithTagSuffix(ref, suffix string) string {
	if strings.Contains(ref, "@") {
		return ref
	}
	slash := strings.LastIndex(ref, "/")
	if colon := strings.LastIndex(ref, ":"); colon > slash {
		return ref + "-" + suffix
	}
	return ref + ":latest-" + suffix
}
