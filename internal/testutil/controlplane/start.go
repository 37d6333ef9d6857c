package controlplane

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// errPortTaken marks a start that failed because a probed free port was
// bound by someone else before the daemon could bind it.
var errPortTaken = errors.New("a port was taken before the daemon bound it")

// start runs etcd and kube-apiserver with their files under dir.
func start(b Binaries, dir string) (_ *ControlPlane, err error) {
	cp := &ControlPlane{}
	defer func() {
		if err != nil {
			cp.Stop()
		}
	}()
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	if cp.etcd, err = startProcess(b.Etcd, filepath.Join(dir, "etcd.log"),
		"--name=test",
		"--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+etcdURL,
		"--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=test="+peerURL,
	); err != nil {
		return nil, err
	}
	if err := waitUntil(cp.etcd, time.Minute, func() error {
		return getOK(http.DefaultClient, etcdURL+"/health")
	}); err != nil {
		return nil, fmt.Errorf("etcd: %w", err)
	}

	files, err := writeCredentials(filepath.Join(dir, "pki"))
	if err != nil {
		return nil, err
	}
	cp.Token = files.token
	cp.CAFile = files.caFile
	cp.URL = "https://127.0.0.1:" + strconv.Itoa(ports[2])
	cp.tls = &tls.Config{RootCAs: files.pool, MinVersion: tls.VersionTLS12}
	began := time.Now()
	if cp.apiserver, err = startProcess(b.APIServer, filepath.Join(dir, "kube-apiserver.log"),
		"--etcd-servers="+etcdURL,
		"--cert-dir="+filepath.Join(dir, "certs"),
		"--tls-cert-file="+files.servingCert,
		"--tls-private-key-file="+files.servingKey,
		"--secure-port="+strconv.Itoa(ports[2]),
		"--bind-address=127.0.0.1",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+files.saPublic,
		"--service-account-signing-key-file="+files.saPrivate,
		"--token-auth-file="+files.tokens,
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=true",
		// No controller manager runs, so no namespace gets a default
		// service account; without this admission plugin pods can be
		// created anyway (envtest does the same).
		"--disable-admission-plugins=ServiceAccount",
	); err != nil {
		return nil, err
	}
	client := cp.HTTPClient()
	client.Timeout = 5 * time.Second
	if err := waitUntil(cp.apiserver, readyTimeout, func() error {
		return getOK(client, cp.URL+"/readyz")
	}); err != nil {
		return nil, fmt.Errorf("kube-apiserver: %w", err)
	}
	cp.ReadyAfter = time.Since(began)
	// The default namespace is created by a controller inside the API
	// server shortly after /readyz passes; tests use it right away.
	if err := waitUntil(cp.apiserver, time.Minute, func() error {
		return getOK(client, cp.URL+"/api/v1/namespaces/default")
	}); err != nil {
		return nil, fmt.Errorf("kube-apiserver: the default namespace: %w", err)
	}
	cp.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(cp.Kubeconfig, kubeconfig(cp.URL, files.caPEM, cp.Token), 0o600); err != nil {
		return nil, err
	}
	return cp, nil
}

// waitUntil polls check until it succeeds, the process exits or the
// timeout passes.
func waitUntil(p *process, timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if p.exited() {
			if p.logContains("address already in use") {
				return fmt.Errorf("%w: %s", errPortTaken, p.logTail())
			}
			return fmt.Errorf("exited before it was ready: %s", p.logTail())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s (%v): %s", timeout, err, p.logTail())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func getOK(client *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
