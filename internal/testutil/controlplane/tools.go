package controlplane

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// findTool looks for a tool on PATH, then in GOPATH/bin where
// scripts/install-test-deps.sh puts kube-apiserver, then in /usr/bin
// (Debian's etcd-server installs /usr/bin/etcd).
func findTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return filepath.Abs(p)
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			gopath = strings.TrimSpace(string(out))
		}
	}
	dirs := []string{}
	for _, dir := range filepath.SplitList(gopath) {
		dirs = append(dirs, filepath.Join(dir, "bin"))
	}
	for _, dir := range append(dirs, "/usr/bin") {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH, in GOPATH/bin or /usr/bin (run scripts/install-test-deps.sh as root)", name)
}
