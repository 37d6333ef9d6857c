package image

import (
	"testing"

	"github.com/moby/buildkit/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCache(t *testing.T) {
	for _, tc := range []struct {
		name      string
		value     string
		direction string
		insecure  bool
		want      client.CacheOptionsEntry
	}{
		{"shorthand ref", "reg.example/dynamo/epp:buildcache", CacheImport, false,
			client.CacheOptionsEntry{Type: "registry", Attrs: map[string]string{"ref": "reg.example/dynamo/epp:buildcache"}}},
		{"registry max", "type=registry,ref=reg.example/c:bc,mode=max,ignore-error=true", CacheExport, false,
			client.CacheOptionsEntry{Type: "registry", Attrs: map[string]string{"ref": "reg.example/c:bc", "mode": "max", "ignore-error": "true"}}},
		{"insecure registry", "type=registry,ref=127.0.0.1:5000/c:bc", CacheExport, true,
			client.CacheOptionsEntry{Type: "registry", Attrs: map[string]string{"ref": "127.0.0.1:5000/c:bc", "registry.insecure": "true"}}},
		{"insecure kept as given", "type=registry,ref=r/c:bc,registry.insecure=false", CacheImport, true,
			client.CacheOptionsEntry{Type: "registry", Attrs: map[string]string{"ref": "r/c:bc", "registry.insecure": "false"}}},
		{"local import", "type=local,src=/tmp/c", CacheImport, false,
			client.CacheOptionsEntry{Type: "local", Attrs: map[string]string{"src": "/tmp/c"}}},
		{"local export", "type=local,dest=/tmp/c,mode=max", CacheExport, false,
			client.CacheOptionsEntry{Type: "local", Attrs: map[string]string{"dest": "/tmp/c", "mode": "max"}}},
		{"inline", "type=inline", CacheExport, false, client.CacheOptionsEntry{Type: "inline", Attrs: map[string]string{}}},
		{"quoted csv", `type=local,"dest=/tmp/a,b"`, CacheExport, false,
			client.CacheOptionsEntry{Type: "local", Attrs: map[string]string{"dest": "/tmp/a,b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCache([]string{tc.value}, tc.direction, tc.insecure)
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.Equal(t, tc.want, got[0])
		})
	}
}

func TestParseCacheRefusals(t *testing.T) {
	for _, tc := range []struct {
		value, direction, want string
	}{
		{"type=inline", CacheImport, "--cache-from \"type=inline\": type=inline is only for --cache-to"},
		{"type=local,src=/x", CacheExport, "--cache-to \"type=local,src=/x\": type=local needs dest=DIR"},
		{"type=local,dest=/x", CacheImport, "type=local needs src=DIR"},
		{"type=registry", CacheExport, "type=registry needs ref="},
		{"type=ftp,ref=x", CacheExport, `unknown cache type "ftp"`},
		{"ref=x,mode=max", CacheExport, "no type="},
		{"type=registry,ref=x,mode=all", CacheExport, "mode=all: use min or max"},
		{"type=registry,ref=x,ignore-error=maybe", CacheExport, "ignore-error=maybe"},
		{"type=registry,ref=x,ref=y", CacheExport, "ref given twice"},
		{"", CacheImport, "empty value"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			_, err := ParseCache([]string{tc.value}, tc.direction, false)
			var ce *CacheOptionError
			require.ErrorAs(t, err, &ce)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestCacheMessagesMaskCredentials(t *testing.T) {
	_, err := ParseCache([]string{"type=s3,url=https://u:s3cret@s3.example,mode=bad"}, CacheExport, false)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cret")
	e := client.CacheOptionsEntry{Type: "s3", Attrs: map[string]string{"url": "https://u:s3cret@s3.example"}}
	assert.Equal(t, "s3 https://u:xxxxx@s3.example", DescribeCache(e))
}

func TestCacheForPlatform(t *testing.T) {
	in := []client.CacheOptionsEntry{
		{Type: "registry", Attrs: map[string]string{"ref": "127.0.0.1:5000/c:buildcache", "mode": "max"}},
		{Type: "registry", Attrs: map[string]string{"ref": "127.0.0.1:5000/c"}},
		{Type: "local", Attrs: map[string]string{"dest": "/tmp/cache/"}},
		{Type: "inline", Attrs: map[string]string{}},
	}
	got := CacheForPlatform(in, "linux/arm64")
	assert.Equal(t, "127.0.0.1:5000/c:buildcache-linux-arm64", got[0].Attrs["ref"])
	assert.Equal(t, "max", got[0].Attrs["mode"])
	assert.Equal(t, "127.0.0.1:5000/c:latest-linux-arm64", got[1].Attrs["ref"])
	assert.Equal(t, "/tmp/cache/linux-arm64", got[2].Attrs["dest"])
	assert.Equal(t, in[3], got[3])
	assert.Equal(t, "127.0.0.1:5000/c:buildcache", in[0].Attrs["ref"], "the input is not changed")
}
