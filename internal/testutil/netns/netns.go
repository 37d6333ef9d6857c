// Package netns runs a test's command in a network namespace of its own,
// with nothing but a loopback interface. Servers that listen on fixed ports
// (GAIE's older integration harnesses take 9002, 8889 and 9004) can then run
// side by side, and none of them can reach beyond the machine.
package netns

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// setUp brings the namespace's loopback up, gives it a default route,
// then becomes the command. kube-apiserver takes its advertise address
// from the default route's interface and will not start without one, as
// on a machine with no network: the route goes to the loopback, which
// also gets 192.0.2.1 (TEST-NET-1, RFC 5737: never routed) as the
// address. A rule ahead of the route makes every other destination
// unreachable at once, so a DNS query (gRPC's resolver asks for a TXT
// record even for localhost) fails at once instead of waiting out its
// timeout, and no packet leaves.
const setUp = `ip link set lo up && ip addr add ` + Address + `/32 dev lo && ip route add default dev lo && ip rule add pref 100 unreachable && exec "$@"`

// Address is the namespace's own non-loopback address.
const Address = "192.0.2.1"

var probe struct {
	once   sync.Once
	prefix []string
	why    string
}

// Wrap returns argv prefixed to run in a new network namespace, or argv
// unchanged and why not: a namespace needs unshare and ip (util-linux,
// iproute2), and root or unprivileged user namespaces. It asks once.
func Wrap(argv []string) ([]string, error) {
	probe.once.Do(func() {
		prefix := []string{"unshare", "--net"}
		if os.Geteuid() != 0 {
			prefix = append(prefix, "--map-root-user")
		}
		prefix = append(prefix, "--", "sh", "-c", setUp, "sh")
		out, err := exec.Command(prefix[0], append(prefix[1:], "true")...).CombinedOutput()
		if err != nil {
			probe.why = fmt.Sprintf("%s: %v: %s", strings.Join(prefix[:len(prefix)-4], " "), err, strings.TrimSpace(string(out)))
			return
		}
		probe.prefix = prefix
	})
	if probe.prefix == nil {
		return argv, fmt.Errorf("no network namespace: %s", probe.why)
	}
	return append(append([]string{}, probe.prefix...), argv...), nil
}
