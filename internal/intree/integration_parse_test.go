package intree

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestOnlyUpstreamRacesIsNarrow checks that a suite's failure passes as a
// known upstream race only when every test passed and every race report
// names a known frame of that pin.
func TestOnlyUpstreamRacesIsNarrow(t *testing.T) {
	saved := upstreamRaces
	t.Cleanup(func() { upstreamRaces = saved })
	upstreamRaces = []upstreamRace{{commit: "a", frame: "integration.Known.func1()"}}
	race := func(frame string) string {
		return `{"Action":"output","Package":"p","Output":"WARNING: DATA RACE\n"}
{"Action":"output","Package":"p","Output":"  ` + frame + `\n"}
{"Action":"output","Package":"p","Output":"==================\n"}
`
	}
	pass := `{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Output":"PASS\n"}
`
	fail := `{"Action":"fail","Package":"p"}
`
	assert.True(t, onlyUpstreamRaces([]byte(pass+race("integration.Known.func1()")+fail), "a"))
	assert.True(t, onlyUpstreamRaces([]byte(pass+race("integration.Known.func1()")+race("integration.Known.func1()")+fail), "a"))
	assert.False(t, onlyUpstreamRaces([]byte(pass+race("integration.Known.func1()")+fail), "b"), "another pin")
	assert.False(t, onlyUpstreamRaces([]byte(pass+race("integration.Known.func1()")+race("handlers.Other()")+fail), "a"), "an unknown race too")
	assert.False(t, onlyUpstreamRaces([]byte(pass+fail), "a"), "a failure without a race")
	assert.False(t, onlyUpstreamRaces([]byte(pass+race("integration.Known.func1()")+`{"Action":"fail","Package":"p","Test":"TestB"}
`+fail), "a"), "a failed test")
	assert.False(t, onlyUpstreamRaces([]byte(`{"Action":"output","Package":"p","Output":"panic: boom\n"}
`+race("integration.Known.func1()")+fail), "a"), "a panic")
}

func TestAnyTestFailedIgnoresPackages(t *testing.T) {
	assert.False(t, anyTestFailed([]byte(`{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"fail","Package":"p"}
`)))
	assert.True(t, anyTestFailed([]byte(`{"Action":"output","Package":"p","Test":"TestA/sub","Output":"--- FAIL: TestA/sub (0.00s)\n"}
{"Action":"fail","Package":"p","Test":"TestA/sub"}
{"Action":"fail","Package":"p"}
`)))
}

// A test running when the process exits (a harness's log.Fatal) gets a
// fail event from test2json, but the testing package never said FAIL.
func TestAnyTestFailedIgnoresATestCutShortByAnExit(t *testing.T) {
	assert.False(t, anyTestFailed([]byte(`{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB/sub","Output":"ERROR Failed to start ext-proc server: bind: address already in use\n"}
{"Action":"fail","Package":"p","Test":"TestB/sub","Elapsed":0.006}
`)))
}

// TestStopLeftoversStopsOnlyWhatRanFromTheAssets starts a process from a
// folder standing in for the assets and one from elsewhere: only the first
// is stopped.
func TestStopLeftoversStopsOnlyWhatRanFromTheAssets(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	require.NoError(t, err)
	assets := t.TempDir()
	require.NoError(t, os.Symlink(sleep, filepath.Join(assets, "kube-apiserver")))
	inside := exec.Command(filepath.Join(assets, "kube-apiserver"), "60")
	outside := exec.Command(sleep, "60")
	require.NoError(t, inside.Start())
	require.NoError(t, outside.Start())
	t.Cleanup(func() { _ = outside.Process.Kill(); _ = outside.Wait() })

	stopLeftovers(t, assets)
	assert.Error(t, inside.Wait(), "the process started from the assets is stopped")
	assert.Nil(t, outside.ProcessState, "the other one still runs")
}

func TestSuiteRunsShareOnlyTheSameProgramAndInputs(t *testing.T) {
	runs := suiteRuns{}
	key := suiteRunKey{suite: "./test/integration/epp/...", binary: "b1", settings: "s1"}
	_, covered := runs.covering(key)
	require.False(t, covered, "nothing ran yet")
	failed := &suiteRun{version: "v1.2.1", outcome: suiteOutcome{ok: false}}
	runs.record(key, failed)

	prev, covered := runs.covering(key)
	require.True(t, covered, "the same binary and settings share the run")
	assert.Equal(t, "v1.2.1", prev.version)
	assert.False(t, prev.outcome.ok, "a failed run fails the versions it covers")

	for name, other := range map[string]suiteRunKey{
		"another suite":    {suite: "./test/integration/bbr/...", binary: "b1", settings: "s1"},
		"another binary":   {suite: key.suite, binary: "b2", settings: "s1"},
		"another settings": {suite: key.suite, binary: "b1", settings: "s2"},
	} {
		_, covered := runs.covering(other)
		assert.False(t, covered, "%s runs on its own", name)
	}
}

func TestSuiteSettingsDifferBySkipPattern(t *testing.T) {
	assert.Equal(t, suiteSettings(""), suiteSettings(""))
	assert.NotEqual(t, suiteSettings(""), suiteSettings("^(TestX)$"))
}

func TestOnlyTimingTestsIsNarrow(t *testing.T) {
	const pin = "7c1f1994dbffb64036b0c22b8d6f7f9edb8d7c0c"
	pkg := "sigs.k8s.io/gateway-api-inference-extension/test/integration/epp"

	tests, ok := onlyTimingTests([]string{"TestRuntimePollingEndpointLifecycle", pkg}, pin)
	assert.True(t, ok)
	assert.Equal(t, []string{"TestRuntimePollingEndpointLifecycle"}, tests)

	_, ok = onlyTimingTests([]string{"TestRuntimePollingEndpointLifecycle", "TestFullDuplexStreamed_KubeInferenceObjectiveRequest", pkg}, pin)
	assert.False(t, ok, "another test failed too")
	_, ok = onlyTimingTests([]string{"TestRuntimePollingEndpointLifecycle", pkg}, "978c23bb96cce25f11cea2421523cb479026e2e9")
	assert.False(t, ok, "the test is known for its pin only")
	_, ok = onlyTimingTests([]string{pkg}, pin)
	assert.False(t, ok, "a package that failed with no test failed is not a timing test")
}
