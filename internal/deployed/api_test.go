//go:build e2e

package deployed

import (
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/controlplane"
)

// startAPIServer starts a real etcd and kube-apiserver on loopback for the
// test (internal/testutil/controlplane).
func startAPIServer(t *testing.T) apiServer {
	cp := controlplane.Start(t)
	return apiServer{kubeconfig: cp.Kubeconfig, token: cp.Token, do: cp.Do}
}
