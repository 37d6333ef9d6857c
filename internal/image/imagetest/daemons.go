// Package imagetest starts the real daemons the image and build tests use:
// a buildkitd (runc worker, as root) and a distribution registry
// (Debian's docker-registry), each on loopback/unix sockets under a private
// folder, and stops them by PID.
package imagetest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/moby/buildkit/client"
)

// Process is a daemon started by a test.
type Process struct {
	cmd  *exec.Cmd
	done chan error
	Log  string // combined output file
}

// Stop ends the process by PID: SIGTERM, then SIGKILL after a grace period.
func (p *Process) Stop() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func start(name string, logPath string, args ...string) (*Process, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	p := &Process{cmd: cmd, done: make(chan error, 1), Log: logPath}
	go func() { p.done <- cmd.Wait(); logf.Close() }()
	return p, nil
}

func (p *Process) exited() bool {
	select {
	case err := <-p.done:
		p.done <- err
		return true
	default:
		return false
	}
}

func logTail(path string) string {
	data, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(data))
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return s
}

// FindTool looks for a tool on PATH, then in GOPATH/bin where
// scripts/install-test-deps.sh puts buildkitd and buildctl.
func FindTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			gopath = strings.TrimSpace(string(out))
		}
	}
	for _, dir := range filepath.SplitList(gopath) {
		p := filepath.Join(dir, "bin", name)
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH or in GOPATH/bin (run scripts/install-test-deps.sh)", name)
}

// BuildKit is a running buildkitd.
type BuildKit struct {
	*Process
	Addr string
}

// StartBuildKit starts buildkitd with a runc worker rooted in dir (keep dir
// short: the unix socket path is limited to about 100 bytes). extra are
// more buildkitd flags.
func StartBuildKit(ctx context.Context, dir string, extra ...string) (*BuildKit, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("buildkitd with the runc worker needs root")
	}
	bin, err := FindTool("buildkitd")
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("runc"); err != nil {
		return nil, errors.New("runc not found (apt-get install runc)")
	}
	addr := "unix://" + filepath.Join(dir, "bk.sock")
	args := append([]string{"--root", filepath.Join(dir, "root"), "--addr", addr,
		"--oci-worker=true", "--containerd-worker=false"}, extra...)
	p, err := start(bin, filepath.Join(dir, "buildkitd.log"), args...)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if p.exited() {
			return nil, fmt.Errorf("buildkitd exited: %s", logTail(p.Log))
		}
		c, err := client.New(ctx, addr)
		if err == nil {
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			_, err = c.ListWorkers(pctx)
			cancel()
			c.Close()
			if err == nil {
				return &BuildKit{Process: p, Addr: addr}, nil
			}
		}
		if time.Now().After(deadline) {
			p.Stop()
			return nil, fmt.Errorf("buildkitd did not become ready: %v: %s", err, logTail(p.Log))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Registry is a running distribution registry on 127.0.0.1.
type Registry struct {
	*Process
	Host string // 127.0.0.1:PORT
}

// StartRegistry runs `docker-registry serve` with filesystem storage in dir.
func StartRegistry(dir string) (*Registry, error) {
	bin, err := exec.LookPath("docker-registry")
	if err != nil {
		return nil, errors.New("docker-registry not found (apt-get install docker-registry)")
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	host := fmt.Sprintf("127.0.0.1:%d", port)
	cfg := fmt.Sprintf(`version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
http:
  addr: %s
`, filepath.Join(dir, "data"), host)
	cfgPath := filepath.Join(dir, "registry.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	p, err := start(bin, filepath.Join(dir, "registry.log"), "serve", cfgPath)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if p.exited() {
			return nil, fmt.Errorf("docker-registry exited: %s", logTail(p.Log))
		}
		resp, err := http.Get("http://" + host + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return &Registry{Process: p, Host: host}, nil
			}
		}
		if time.Now().After(deadline) {
			p.Stop()
			return nil, fmt.Errorf("docker-registry did not become ready: %v: %s", err, logTail(p.Log))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
