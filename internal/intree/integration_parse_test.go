//go:build e2e

package intree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// TestOnlyUpstreamFlakesIsNarrow checks that a suite's failure is run
// again only when every failed test is a known flake of its pin: by the
// top-level test's name, or by what each failed subtest printed.
func TestOnlyUpstreamFlakesIsNarrow(t *testing.T) {
	const pin = "7c1f1994dbffb64036b0c22b8d6f7f9edb8d7c0c"
	pkg := "sigs.k8s.io/gateway-api-inference-extension/test/integration/epp"
	none := map[string]string{}

	tests, ok := onlyUpstreamFlakes([]string{"TestRuntimePollingEndpointLifecycle", pkg}, none, pin)
	assert.True(t, ok)
	assert.Equal(t, []string{"TestRuntimePollingEndpointLifecycle"}, tests)

	_, ok = onlyUpstreamFlakes([]string{"TestRuntimePollingEndpointLifecycle", "TestFullDuplexStreamed_KubeInferenceObjectiveRequest", pkg}, none, pin)
	assert.False(t, ok, "another test failed too")
	_, ok = onlyUpstreamFlakes([]string{"TestRuntimePollingEndpointLifecycle", pkg}, none, "978c23bb96cce25f11cea2421523cb479026e2e9")
	assert.False(t, ok, "the test is known for its pin only")
	_, ok = onlyUpstreamFlakes([]string{pkg}, none, pin)
	assert.False(t, ok, "a package that failed with no test failed is no flake")

	// The harness's port race, known by what the failed subtest printed;
	// its parents fail with it.
	leaf := "TestFullDuplexStreamed_KubeInferenceObjectiveRequest/Standard/select_active_lora,_low_queue"
	failed := []string{leaf, "TestFullDuplexStreamed_KubeInferenceObjectiveRequest/Standard", "TestFullDuplexStreamed_KubeInferenceObjectiveRequest", pkg}
	bind := map[string]string{leaf: "Error: Condition never satisfied\nMessages: Server failed to bind port 127.0.0.1:45055\n"}
	tests, ok = onlyUpstreamFlakes(failed, bind, pin)
	assert.True(t, ok)
	assert.Equal(t, []string{"TestFullDuplexStreamed_KubeInferenceObjectiveRequest"}, tests)
	tests, ok = onlyUpstreamFlakes(failed, bind, "206d40dca75d387ed646c9b3cdb9e873c2197e38")
	assert.True(t, ok, "206d40dca75d has the same harness")
	assert.Equal(t, []string{"TestFullDuplexStreamed_KubeInferenceObjectiveRequest"}, tests)

	_, ok = onlyUpstreamFlakes(failed, map[string]string{leaf: "Error: Not equal: expected 200, actual 500\n"}, pin)
	assert.False(t, ok, "a subtest that failed for another reason")
	other := "TestFullDuplexStreamed_KubeInferenceObjectiveRequest/Standard/select_lower_queue_and_kv"
	_, ok = onlyUpstreamFlakes(append(failed, other), bind, pin)
	assert.False(t, ok, "a second subtest failed without the port race")
	_, ok = onlyUpstreamFlakes(failed, bind, "f316594a0ed4d78d7aed43f4bf066f410ed89b0f")
	assert.False(t, ok, "GAIE v1.2.1's harness listens on fixed ports")
	_, ok = onlyUpstreamFlakes(failed[1:], map[string]string{}, pin)
	assert.False(t, ok, "a parent that failed with no failed subtest is judged by its own output")
}

func TestSuiteProgressSkipsWhatPassedByFullName(t *testing.T) {
	var p suiteProgress
	assert.Empty(t, p.skip("p", ""), "nothing ran yet")
	assert.Equal(t, "^(TestX)$", p.skip("p", "^(TestX)$"))

	p.add([]byte(`{"Action":"pass","Package":"p","Test":"TestA/one"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestB/a.b"}
{"Action":"pass","Package":"p","Test":"TestB/c/d"}
{"Action":"fail","Package":"p","Test":"TestB/e"}
{"Action":"pass","Package":"q","Test":"TestQ"}
{"Action":"pass","Package":"q"}
`))
	assert.Equal(t, `^TestA$|^TestB$/^a\.b$|^TestB$/^c$/^d$`, p.skip("p", ""),
		"TestA/one is covered by TestA; TestB did not pass, so only its passed subtests are skipped")
	assert.Equal(t, `^(TestX)$|^TestA$|^TestB$/^a\.b$|^TestB$/^c$/^d$`, p.skip("p", "^(TestX)$"))
	assert.True(t, p.finished["q"])
	assert.False(t, p.finished["p"])
	assert.Equal(t, []string{"TestA", "TestA/one", "TestB/a.b", "TestB/c/d", "TestQ"}, p.tests())
}

// TestSuiteProgressResumesARealTestBinary runs a test binary whose second
// case exits the process the first time, as GAIE's harness does when its
// server cannot listen, and resumes it: the second run starts at that
// case and runs everything after it, and nothing that passed runs again.
func TestSuiteProgressResumesARealTestBinary(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "exited-once")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module resume\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "resume_test.go"), []byte(`package resume

import (
	"os"
	"testing"
)

func TestFirst(t *testing.T) {}

func TestCases(t *testing.T) {
	t.Run("no pods (a|b)", func(t *testing.T) {})
	t.Run("next", func(t *testing.T) {
		if _, err := os.Stat(`+strconv.Quote(marker)+`); err != nil {
			os.WriteFile(`+strconv.Quote(marker)+`, nil, 0o644)
			os.Exit(1)
		}
	})
	t.Run("last", func(t *testing.T) {})
}

func TestAfter(t *testing.T) {}
`), 0o644))
	binary := filepath.Join(dir, "resume.test")
	build := exec.Command("go", "test", "-c", "-o", binary, ".")
	build.Dir = dir
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	run := func(p *suiteProgress) []byte {
		cmd := exec.Command(test2json(t), "-t", "-p", "resume", binary)
		cmd.Args = append(cmd.Args, suiteFlags(p.skip("resume", ""), "")...)
		cmd.Dir = dir
		out, _ := cmd.Output()
		return out
	}
	var p suiteProgress
	first := run(&p)
	passed, _, _ := parseTestJSON(first)
	assert.Equal(t, []string{"TestCases/no_pods_(a|b)", "TestFirst"}, passed)
	assert.False(t, anyTestFailed(first), "the process exited; no test failed")

	p.add(first)
	second := run(&p)
	passed, failed, _ := parseTestJSON(second)
	assert.Empty(t, failed)
	assert.Equal(t, []string{"TestAfter", "TestCases", "TestCases/last", "TestCases/next"}, passed,
		"the second run starts at the case that exited and skips what passed")
}
