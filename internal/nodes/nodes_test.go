package nodes

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/platform"
)

var (
	both      = []string{"linux/amd64", "linux/arm64"}
	platforms = func() []platform.Platform {
		ps, err := platform.Parse(both)
		if err != nil {
			panic(err)
		}
		return ps
	}()
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name        string
		specs       []string
		perPlatform bool
		want        map[string][]string // addr -> platforms
	}{
		{"none: BUILDKIT_HOST", nil, false, map[string][]string{"": both}},
		{"one address for all", []string{"tcp://bk:1234"}, false, map[string][]string{"tcp://bk:1234": both}},
		{"pairs in one value", []string{"linux/arm64=tcp://arm-node:1234,linux/amd64=unix:///run/buildkit/buildkitd.sock"}, true,
			map[string][]string{"tcp://arm-node:1234": {"linux/arm64"}, "unix:///run/buildkit/buildkitd.sock": {"linux/amd64"}}},
		{"repeated flags", []string{"linux/amd64=tcp://a:1", "linux/arm64=tcp://b:2"}, true,
			map[string][]string{"tcp://a:1": {"linux/amd64"}, "tcp://b:2": {"linux/arm64"}}},
		{"two platforms on one node", []string{"linux/amd64=tcp://a:1", "linux/arm64=tcp://a:1"}, true,
			map[string][]string{"tcp://a:1": both}},
		{"an address with a query", []string{"linux/amd64=kube-pod://bk?namespace=ci", "linux/arm64=tcp://b:2"}, true,
			map[string][]string{"kube-pod://bk?namespace=ci": {"linux/amd64"}, "tcp://b:2": {"linux/arm64"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.specs, platforms)
			require.NoError(t, err)
			assert.Equal(t, tc.perPlatform, p.PerPlatform)
			got := map[string][]string{}
			for _, n := range p.Nodes {
				got[n.Addr] = n.Platforms
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseRefusesWhatCannotGiveOneNodePerPlatform(t *testing.T) {
	for _, tc := range []struct {
		name  string
		specs []string
		want  string
	}{
		{"missing platform", []string{"linux/amd64=tcp://a:1"}, "no node for linux/arm64 (add linux/arm64=ADDR)"},
		{"twice", []string{"linux/amd64=tcp://a:1", "linux/amd64=tcp://b:1", "linux/arm64=tcp://c:1"}, "linux/amd64 is given twice"},
		{"not requested", []string{"linux/amd64=tcp://a:1,linux/arm64=tcp://b:1,linux/s390x=tcp://c:1"}, "linux/s390x=tcp://c:1 names a platform the build does not ask for"},
		{"mixed", []string{"tcp://a:1", "linux/arm64=tcp://b:1"}, "tcp://a:1 has no platform while others do"},
		{"two plain", []string{"tcp://a:1,tcp://b:1"}, "2 addresses without a platform"},
		{"empty address", []string{"linux/amd64=", "linux/arm64=tcp://b:1"}, "linux/amd64= has no address"},
		{"credentials masked", []string{"linux/amd64=tcp://u:s3cret@a:1", "linux/amd64=tcp://b:1"}, "tcp://u:xxxxx@a:1"},
		{"no scheme", []string{"127.0.0.1:1234"}, "127.0.0.1:1234 has no scheme: use tcp://127.0.0.1:1234"},
		{"no scheme, credentials masked", []string{"u:s3cret@a:1"}, "use tcp://u:xxxxx@a:1"},
		{"a socket path", []string{"/run/buildkit/buildkitd.sock"}, "use unix:///run/buildkit/buildkitd.sock"},
		{"no scheme in a pair", []string{"linux/amd64=a:1,linux/arm64=tcp://b:1"}, "linux/amd64=a:1 has no scheme: use tcp://a:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.specs, platforms)
			var se *SpecError
			require.ErrorAs(t, err, &se)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "s3cret")
		})
	}
}

func TestConnectNamesTheUnreachableNode(t *testing.T) {
	down := "unix://" + filepath.Join(t.TempDir(), "nobody.sock")
	p, err := Parse([]string{"linux/arm64=" + down, "linux/amd64=" + down + "2"}, platforms)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = p.Connect(ctx, image.TLSOptions{})
	var ne *NodeError
	require.ErrorAs(t, err, &ne)
	assert.Contains(t, err.Error(), "nobody.sock")
	var ue *image.UnreachableError
	assert.ErrorAs(t, err, &ue)
	for _, n := range p.Nodes {
		assert.Nil(t, n.Client, "no connection is left open")
	}
}
