package image

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moby/buildkit/client"
	digest "github.com/opencontainers/go-digest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// secretMounts are the RUN secret mounts (id -> target) of the stage
// named name in src; the parser leaves a mount's fields to the frontend's
// dispatch, so they are read from the stage's text.
func secretMounts(t *testing.T, src, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	found := false
	for _, chunk := range strings.Split(src, "\nFROM ")[1:] {
		header, _, _ := strings.Cut(chunk, "\n")
		if !strings.HasSuffix(header, " AS "+name) && !(name == "" && !strings.Contains(header, " AS ")) {
			continue
		}
		found = true
		for _, m := range secretMount.FindAllStringSubmatch(chunk, -1) {
			out[m[1]] = m[2]
		}
	}
	require.True(t, found, "no stage %q", name)
	return out
}

var secretMount = regexp.MustCompile(`--mount=type=secret,id=([^,\s]+)(?:,target=(\S+))?`)

// The settings and the --secret values reach the three steps that fetch,
// and no other: the final image's stage runs nothing.
func TestFetchStepsAloneMountTheSettings(t *testing.T) {
	src := ContainerDockerfileFetching("epp", "./cmd/epp", "pkg/binding", []string{"netrc", "GOPROXY", "netrc"})
	stages, warnings := parseDockerfile(t, src)
	assert.Empty(t, warnings)
	for _, name := range []string{"capi-build", "capi-cbindgen", "builder"} {
		s := stageNamed(t, stages, name)
		mounts := secretMounts(t, src, name)
		assert.Equal(t, map[string]string{FetchSecret: fetchScriptPath, CASecret: caPath, CargoConfigSecret: cargoConfigPath,
			"netrc": "", "GOPROXY": ""}, mounts, name)
		assert.True(t, strings.HasPrefix(findRun(t, s), sourceFetch), "%s sources the settings first", name)
	}
	for _, s := range stages {
		switch s.Name {
		case "capi-build", "capi-cbindgen", "builder":
		default:
			assert.Empty(t, secretMounts(t, src, s.Name), s.Name)
		}
	}
	assert.Contains(t, argNames(stageNamed(t, stages, "builder")), "GOFLAGS", "GOFLAGS changes the build: a build arg")
	assert.NotContains(t, argNames(stageNamed(t, stages, "capi-build")), "GOFLAGS")

	assert.Len(t, secretMounts(t, ContainerDockerfile("epp", "./cmd/epp", "pkg/binding"), "builder"), 3, "without --secret: the settings only")
}

// The script exports the settings exactly as given, whatever they hold,
// and a --secret whose id names a variable from its file.
func TestFetchScriptExportsTheSettingsAsGiven(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	env := map[string]string{"GOPROXY": "https://u:p'w $x@proxy.example|direct", "GONOSUMDB": "corp.example"}
	script := filepath.Join(t.TempDir(), "fetch.sh")
	require.NoError(t, os.WriteFile(script, FetchScript(env, []string{"netrc", "CARGO_REGISTRIES_CORP_TOKEN", "lower-case"}), 0o600))
	out, err := exec.Command(sh, "-c", `. "$0" && printf '%s\n%s\n%s\n' "$GOPROXY" "$GONOSUMDB" "$NETRC"`, script).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "https://u:p'w $x@proxy.example|direct\ncorp.example\n/run/secrets/netrc\n", string(out))
	text := string(FetchScript(env, []string{"CARGO_REGISTRIES_CORP_TOKEN", "lower-case"}))
	assert.Contains(t, text, "CARGO_REGISTRIES_CORP_TOKEN=$(cat /run/secrets/CARGO_REGISTRIES_CORP_TOKEN)")
	assert.NotContains(t, text, "lower-case", "an id that is no variable name is only a file")
	assert.Contains(t, text, "SSL_CERT_FILE=\"$bundle\" CARGO_HTTP_CAINFO=\"$bundle\"")
}

func TestFetchFailuresNameTheFetchTheURLAndTheFlag(t *testing.T) {
	goStep := "[builder 4/4] RUN --mount=type=secret,id=epp-build-fetch,target=" + fetchScriptPath + " " + sourceFetch + "case ... go build ..."
	cargoStep := "[capi-build 1/1] RUN --mount=type=secret,id=epp-build-fetch,target=" + fetchScriptPath + " " + sourceFetch + "sh /capi/build.sh lib"
	for _, tc := range []struct {
		name, step, line, what, url, fix string
	}{
		{"go tls", goStep, `cmd/epp/dep.go:3:8: example.com/x@v1.0.0: Get "https://ci:hunter22@proxy.corp:8443/example.com/x/@v/v1.0.0.mod": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
			FetchGoModules, "https://ci:xxxxx@proxy.corp:8443/example.com/x/@v/v1.0.0.mod", "--ca-bundle FILE"},
		{"go login", goStep, `go: example.com/x@v1.0.0: reading https://proxy.corp/example.com/x/@v/v1.0.0.zip: 401 Unauthorized`,
			FetchGoModules, "https://proxy.corp/example.com/x/@v/v1.0.0.zip", "--secret id=netrc"},
		{"go unreachable", goStep, `go: example.com/x@v1.0.0: Get "https://proxy.golang.org/example.com/x/@v/v1.0.0.mod": dial tcp: lookup proxy.golang.org: no such host`,
			FetchGoModules, "https://proxy.golang.org/example.com/x/@v/v1.0.0.mod", "--goproxy URL"},
		{"go sumdb", goStep, `verifying example.com/x@v1.0.0: example.com/x@v1.0.0: reading https://sum.golang.org/lookup/example.com/x@v1.0.0: 404 Not Found`,
			FetchGoModules, "https://sum.golang.org/lookup/example.com/x@v1.0.0", "--gonosumdb"},
		{"cargo tls", cargoStep, "  [60] SSL peer certificate or SSH remote key was not OK (SSL certificate problem: self-signed certificate in certificate chain); class=Net (12)   failed to download from `https://index.crates.io/config.json`",
			FetchCrates, "https://index.crates.io/config.json", "--ca-bundle FILE"},
		{"cargo unreachable", cargoStep, "error: failed to get `serde` as a dependency of package `libdynamo_llm v0.1.0 (/capi/src)`",
			FetchCrates, "", "--cargo-mirror URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := ExplainFetchLog(tc.step, []string{"go: downloading example.com/x v1.0.0", tc.line, "exit status 1"})
			require.NotNil(t, fe)
			assert.Equal(t, tc.what, fe.What)
			assert.Equal(t, tc.url, fe.URL)
			assert.Contains(t, fe.Error(), tc.fix)
			assert.NotContains(t, fe.Error(), "hunter22")
		})
	}
	assert.Nil(t, ExplainFetchLog(goStep, []string{"cmd/epp/main.go:9:2: undefined: foo"}), "a compile error is no fetch failure")
	assert.Nil(t, ExplainFetchLog("[builder 2/4] COPY src/ /src/", []string{"x509: certificate signed by unknown authority"}), "not a fetch step")
}

// The watch reads a failed step's output, in whatever chunks it comes,
// and only a step that failed.
func TestFetchWatchExplainsOnlyAFailedFetchStep(t *testing.T) {
	in := make(chan *client.SolveStatus)
	out, w := watchFetch(in)
	done := make(chan struct{})
	go func() {
		for range out {
		}
		close(done)
	}()
	step := "[builder 4/4] RUN " + sourceFetch + "go build"
	d := digest.FromString("step")
	line := `main.go:3:8: example.com/x@v1.0.0: Get "https://127.0.0.1:9/example.com/x/@v/v1.0.0.mod": tls: failed to verify certificate: x509: certificate signed by unknown authority` + "\n"
	in <- &client.SolveStatus{Vertexes: []*client.Vertex{{Digest: d, Name: step}}}
	in <- &client.SolveStatus{Logs: []*client.VertexLog{{Vertex: d, Data: []byte(line[:40])}}}
	in <- &client.SolveStatus{Logs: []*client.VertexLog{{Vertex: d, Data: []byte(line[40:])}}}
	solveErr := errors.New(`process "/bin/sh -c if [ -f ...] did not complete successfully: exit code: 1`)
	assert.Nil(t, w.explain(solveErr), "the step has not failed (yet)")
	in <- &client.SolveStatus{Vertexes: []*client.Vertex{{Digest: d, Name: step, Error: "exit code: 1"}}}
	close(in)
	<-done
	fe := w.explain(solveErr)
	require.NotNil(t, fe)
	assert.Equal(t, "https://127.0.0.1:9/example.com/x/@v/v1.0.0.mod", fe.URL)
	assert.ErrorIs(t, fe, solveErr)
}
