//go:build e2e

package deployed

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// healthService is the gRPC health service the operator's probes ask for
// (component_epp.go: Service "inference-extension").
const healthService = "inference-extension"

// runningEPP is the EPP process started as the operator starts it.
type runningEPP struct {
	cmd         *exec.Cmd
	log         *lockedBuffer
	grpcPort    int
	healthPort  int
	metricsPort int
	done        chan struct{}
	exitErr     error
}

// startEPP starts binary with the line's operator arguments and
// environment. The container's fixed ports (9002, 9003, 9090) are taken
// from free loopback ports instead, so tests can run side by side: the
// arguments name the same flags with other numbers, and --metrics-port is
// added because the operator leaves the metrics port at its default.
// The API server is reached through KUBECONFIG, as in-cluster config is in
// a pod. extraArgs come last (the harness self-test breaks a start with
// them).
func startEPP(t *testing.T, binary string, l line, o operatorInput, api apiServer, extraEnv map[string]string, extraArgs ...string) *runningEPP {
	metricsPort := freePort(t)
	metricsFlag := l.metricsFlag
	if metricsFlag == "" {
		metricsFlag = "--metrics-port"
	}
	args := append(l.args(o), metricsFlag, strconv.Itoa(metricsPort))
	args = append(args, extraArgs...)
	home := t.TempDir() // the operator mounts an emptyDir at /home/nonroot/.cache
	env := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin", "KUBECONFIG": api.kubeconfig}
	for k, v := range l.env(o) {
		env[k] = v
	}
	for k, v := range extraEnv {
		env[k] = v
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = sortedEnv(env)
	logBuf := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logBuf, logBuf
	require.NoError(t, cmd.Start())
	e := &runningEPP{cmd: cmd, log: logBuf, grpcPort: o.grpcPort, healthPort: o.healthPort, metricsPort: metricsPort,
		done: make(chan struct{})}
	go func() {
		e.exitErr = cmd.Wait()
		close(e.done)
	}()
	t.Cleanup(func() {
		select {
		case <-e.done:
		default:
			_ = cmd.Process.Kill()
			<-e.done
		}
		if t.Failed() {
			t.Logf("EPP log (tail):\n%s", tail(e.log.Bytes(), 6000))
		}
	})
	return e
}

// waitServing waits until the gRPC health service reports SERVING on the
// health port, as the operator's startup probe does; it gives up early
// when the EPP exits.
func (e *runningEPP) waitServing(wait time.Duration) error {
	conn, err := grpc.NewClient(net.JoinHostPort("127.0.0.1", strconv.Itoa(e.healthPort)),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	client := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(wait)
	for {
		select {
		case <-e.done:
			return fmt.Errorf("the EPP exited before serving (%v): %s", e.exitErr, tail(e.log.Bytes(), 2000))
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		resp, err := client.Check(ctx, &healthpb.HealthCheckRequest{Service: healthService})
		cancel()
		if err == nil && resp.Status == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("status %s", resp.Status)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gRPC health %s not SERVING after %s: %v", healthService, wait, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// metrics GETs the metrics endpoint with the API server's token (the
// endpoint authenticates and authorizes through the API server).
func (e *runningEPP) metrics(token string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", e.metricsPort), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET /metrics: %s: %s", resp.Status, body)
	}
	return string(body), nil
}

// terminate sends SIGTERM, as the kubelet does, and returns the exit
// error (nil for exit code 0) once the process ended; the wait only bounds
// a hang (the pod's grace period is 130 s).
func (e *runningEPP) terminate(t *testing.T, wait time.Duration) error {
	require.NoError(t, e.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-e.done:
		return e.exitErr
	case <-time.After(wait):
		t.Fatalf("the EPP did not exit within %s of SIGTERM", wait)
		return nil
	}
}

func sortedEnv(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// freePort returns a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// writeConfig writes the graph's EndpointPickerConfig where the operator
// mounts its ConfigMap (/etc/epp/epp-config-dynamo.yaml, under dir).
func writeConfig(t *testing.T, dir, config string) string {
	p := filepath.Join(dir, "etc", "epp", "epp-config-dynamo.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(config), 0o644))
	return p
}

// lockedBuffer collects a process's output for the log.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
}

// probeOnce asks the gRPC health service on port once, as one probe of
// the kubelet does.
func probeOnce(port int) error {
	conn, err := grpc.NewClient(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: healthService})
	if err != nil {
		return err
	}
	if resp.Status != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("status %s", resp.Status)
	}
	return nil
}
