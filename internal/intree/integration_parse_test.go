package intree

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestParseTestJSONCountsFailures checks what TestGAIEIntegrationSuites
// relies on to fail: a failed test, and a package that did not build, are
// both reported as failed; only tests count as passed.
func TestParseTestJSONCountsFailures(t *testing.T) {
	out := []byte(`{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"ok\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"run","Package":"p","Test":"TestB/sub"}
{"Action":"output","Package":"p","Test":"TestB/sub","Output":"boom\n"}
{"Action":"fail","Package":"p","Test":"TestB/sub"}
{"Action":"fail","Package":"p","Test":"TestB"}
not json: a build error printed by go test
{"Action":"output","Package":"q","Output":"FAIL\tq [build failed]\n"}
{"Action":"fail","Package":"q"}
{"Action":"pass","Package":"p"}
`)
	passed, failed, outputs := parseTestJSON(out)
	assert.Equal(t, []string{"TestA"}, passed)
	assert.Equal(t, []string{"TestB/sub", "TestB", "q"}, failed)
	assert.Equal(t, "boom\n", outputs["TestB/sub"])
	assert.Contains(t, outputs["q"], "build failed")
}

func TestTestsElapsedSumsPackages(t *testing.T) {
	out := []byte(`{"Action":"pass","Package":"p","Test":"TestA","Elapsed":1.5}
{"Action":"pass","Package":"p","Elapsed":2.5}
{"Action":"fail","Package":"q","Elapsed":1}
`)
	assert.Equal(t, 3500*time.Millisecond, testsElapsed(out))
}

func TestSkipPatternJoinsAPinsFailures(t *testing.T) {
	saved := upstreamFailures
	t.Cleanup(func() { upstreamFailures = saved })
	upstreamFailures = []upstreamFailure{
		{commit: "a", test: "TestX"},
		{commit: "b", test: "TestY"},
		{commit: "a", test: "TestZ_1.5"},
	}
	assert.Equal(t, `^(TestX|TestZ_1\.5)$`, skipPattern("a"))
	assert.Empty(t, skipPattern("c"))
}
