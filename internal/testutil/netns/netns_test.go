//go:build integration

package netns

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/stretchr/testify/require"
)

// helperEnv makes this test binary, run again, the child that binds a port.
const helperEnv = "NETNS_TEST_BIND_PORT"

func TestMain(m *testing.M) {
	if port := os.Getenv(helperEnv); port != "" {
		l, err := net.Listen("tcp", "127.0.0.1:"+port)
		if err != nil {
			os.Stdout.WriteString("bind: " + err.Error())
			os.Exit(3)
		}
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			os.Stdout.WriteString("dial: " + err.Error())
			os.Exit(4)
		}
		c.Close()
		// The address a default route needs is there too.
		if _, err := net.Listen("tcp", Address+":0"); err != nil {
			os.Stdout.WriteString("address: " + err.Error())
			os.Exit(5)
		}
		// Anything else is unreachable at once.
		if c, err := net.DialTimeout("udp", "198.51.100.7:53", 5*time.Second); err == nil {
			_, err = c.Write([]byte("x"))
			if err == nil {
				os.Stdout.WriteString("a packet left for 198.51.100.7")
				os.Exit(6)
			}
		}
		os.Stdout.WriteString("ok")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A port taken on the machine is free inside the namespace, and loopback
// works there; the same child outside finds the port taken.
func TestAFixedPortTakenOutsideIsFreeInside(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	self, err := os.Executable()
	require.NoError(t, err)

	argv, err := Wrap([]string{self})
	if err != nil {
		testenv.Require(t, "a network namespace (unshare, ip)", err.Error())
	}
	inside := exec.Command(argv[0], argv[1:]...)
	inside.Env = append(os.Environ(), helperEnv+"="+port)
	out, err := inside.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "ok", string(out))

	outside := exec.Command(self)
	outside.Env = append(os.Environ(), helperEnv+"="+port)
	out, err = outside.CombinedOutput()
	require.Error(t, err, "%s", out)
	require.Contains(t, string(out), "bind:")
}
