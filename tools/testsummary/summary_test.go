package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stream is a trimmed `go test -json` run of two packages: a pass, a
// skip with its reason, a failing subtest and a package that did not build.
const stream = `{"Action":"run","Package":"example/a","Test":"TestPass"}
{"Action":"output","Package":"example/a","Test":"TestPass","Output":"=== RUN   TestPass\n"}
{"Action":"pass","Package":"example/a","Test":"TestPass"}
{"Action":"run","Package":"example/a","Test":"TestNeedsDaemon"}
{"Action":"output","Package":"example/a","Test":"TestNeedsDaemon","Output":"=== RUN   TestNeedsDaemon\n"}
{"Action":"output","Package":"example/a","Test":"TestNeedsDaemon","Output":"    daemon_test.go:12: buildkitd is not available (builds images)\n"}
{"Action":"output","Package":"example/a","Test":"TestNeedsDaemon","Output":"--- SKIP: TestNeedsDaemon (0.00s)\n"}
{"Action":"skip","Package":"example/a","Test":"TestNeedsDaemon"}
{"Action":"run","Package":"example/a","Test":"TestParent/child"}
{"Action":"fail","Package":"example/a","Test":"TestParent/child"}
{"Action":"fail","Package":"example/a","Test":"TestParent"}
{"Action":"fail","Package":"example/a"}
not json: a build error line
{"Action":"output","Package":"example/b","Output":"FAIL\texample/b [build failed]\n"}
{"Action":"fail","Package":"example/b"}
`

func TestSummaryCountsAndReasons(t *testing.T) {
	s := newSummary()
	require.NoError(t, s.read(strings.NewReader(stream)))
	passed, failed, skipped := s.counts()
	assert.Equal(t, 1, passed)
	assert.Equal(t, 3, failed, "two failing tests and one package that did not build")
	assert.Equal(t, 1, skipped)
	assert.Equal(t, []string{"example/a TestNeedsDaemon: buildkitd is not available (builds images)"}, s.skips())
	assert.Equal(t, []string{"example/b"}, s.buildFailures)
}

// A stage that runs a package twice (a rerun) counts each test once, by
// its last outcome.
func TestSummaryCountsARerunOnce(t *testing.T) {
	s := newSummary()
	first := `{"Action":"fail","Package":"p","Test":"TestFlaky"}` + "\n" + `{"Action":"fail","Package":"p"}` + "\n"
	second := `{"Action":"pass","Package":"p","Test":"TestFlaky"}` + "\n" + `{"Action":"pass","Package":"p"}` + "\n"
	require.NoError(t, s.read(strings.NewReader(first)))
	require.NoError(t, s.read(strings.NewReader(second)))
	passed, failed, _ := s.counts()
	assert.Equal(t, 1, passed)
	assert.Equal(t, 0, failed)
}
