package vulns

import (
	"testing"
)

// TestRangesPairTheEntrysEvents reads the affected ranges out of a
// scanner stream: each introduced opens a range the next fixed closes,
// "0" is the first version, an open range at the end is never fixed.
func TestRangesPairTheEntrysEvents(t *testing.T) {
	stream := `{"config":{"scanner_name":"govulncheck"}}
{"osv":{"id":"GO-2026-0001","affected":[
 {"package":{"name":"example.com/a"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.2.0"},{"introduced":"1.4.0"},{"fixed":"1.5.0"},{"introduced":"1.7.0"}]}]},
 {"package":{"name":"stdlib"},"ranges":[{"type":"SEMVER","events":[{"introduced":"1.26.0-0"},{"fixed":"1.26.9"}]},{"type":"GIT","events":[{"introduced":"0"}]}]}]}}
`
	tg := &Target{stream: []byte(stream)}
	got, err := tg.Ranges()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]Range{
		RangeKey("GO-2026-0001", "example.com/a"): {{Fixed: "v1.2.0"}, {Introduced: "v1.4.0", Fixed: "v1.5.0"}, {Introduced: "v1.7.0"}},
		RangeKey("GO-2026-0001", "stdlib"):        {{Introduced: "v1.26.0-0", Fixed: "v1.26.9"}},
	}
	if len(got) != len(want) {
		t.Fatalf("ranges %v, want %v", got, want)
	}
	for k, w := range want {
		g := got[k]
		if len(g) != len(w) {
			t.Fatalf("%s: %v, want %v", k, g, w)
		}
		for i := range w {
			if g[i] != w[i] {
				t.Errorf("%s range %d: %+v, want %+v", k, i, g[i], w[i])
			}
		}
	}
	a := want[RangeKey("GO-2026-0001", "example.com/a")]
	for v, affected := range map[string]bool{"v1.1.9": true, "v1.2.0": false, "v1.4.0": true, "v1.5.0": false, "v1.6.3": false, "v1.7.0": true, "v2.0.0": true} {
		if got := a[0].Affects(v) || a[1].Affects(v) || a[2].Affects(v); got != affected {
			t.Errorf("%s affected = %v, want %v", v, got, affected)
		}
	}
}
