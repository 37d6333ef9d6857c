package pipeline_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/ffi/internal/capidouble"
	"github.com/epp-build/epp-build/ffi/pipeline"
)

// The runtime can be initialised once per process (Dynamo v0.7.0 aborts on
// a second dynamo_llm_init), so these run in a fresh process each.
const childEnv = "EPP_BUILD_PIPELINE_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "reopen":
		os.Exit(reopen())
	case "init-twice":
		capidouble.Init("dynamo", 16)
		capidouble.Init("dynamo", 16)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// reopen closes every Router and opens again, as an EPP does across a
// config reload.
func reopen() int {
	for range 3 {
		r, err := pipeline.Open(testConfig())
		if err != nil {
			return 3
		}
		if _, err := r.Select(context.Background(), chatRequest("again")); err != nil {
			return 4
		}
		if err := r.Close(); err != nil {
			return 5
		}
	}
	return 0
}

func runChild(t *testing.T, mode string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return 0, string(out)
	}
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	return exit.ExitCode(), string(out)
}

func TestReopeningAfterCloseInitialisesOnce(t *testing.T) {
	code, out := runChild(t, "reopen")
	assert.Equal(t, 0, code, out)
}

// The double must be as strict as the library: a second init kills the
// process, so a binding that re-initialises cannot pass its tests.
func TestTheDoubleAbortsOnASecondInit(t *testing.T) {
	code, out := runChild(t, "init-twice")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, out, "dynamo_llm_init called a second time")
}
