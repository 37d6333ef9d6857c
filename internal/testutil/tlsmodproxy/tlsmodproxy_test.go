package tlsmodproxy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The go command fetches through the proxy only when it trusts the test
// CA and sends the login.
func TestGoFetchesOnlyWithTheCAAndTheLogin(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	s := Serve(t, Options{User: "alice", Password: "s3cret-pw"}, Module{Path: "example.com/tlsdep", Version: "v1.0.0",
		Files: map[string]string{"dep.go": "package tlsdep\n\nconst Name = \"tlsdep\"\n"}})
	dir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("go.mod", "module example.com/user\n\ngo 1.21\n\nrequire example.com/tlsdep v1.0.0\n")
	write("go.sum", strings.Join(s.GoSum, "\n")+"\n")
	write("main.go", "package main\n\nimport \"example.com/tlsdep\"\n\nfunc main() { println(tlsdep.Name) }\n")
	netrc := filepath.Join(t.TempDir(), "netrc")
	require.NoError(t, os.WriteFile(netrc, []byte(s.Netrc()), 0o600))

	run := func(extra ...string) (string, error) {
		cmd := exec.Command(goBin, "build", "-o", os.DevNull, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPROXY="+s.URL, "GONOSUMDB=example.com", "GOFLAGS=-mod=readonly",
			"GOMODCACHE="+t.TempDir(), "NETRC="+netrc)
		cmd.Env = append(cmd.Env, extra...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run()
	require.Error(t, err)
	assert.Contains(t, out, "x509: certificate signed by unknown authority")

	out, err = run("SSL_CERT_FILE="+s.CAFile, "NETRC="+filepath.Join(t.TempDir(), "none"))
	require.Error(t, err)
	assert.Contains(t, out, "401 Unauthorized")

	out, err = run("SSL_CERT_FILE=" + s.CAFile)
	require.NoError(t, err, out)
	assert.Positive(t, s.Requests())
}
