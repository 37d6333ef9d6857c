package image

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/moby/buildkit/client"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/epp-build/epp-build/internal/redact"
)

// NodeGoneError means the BuildKit daemon itself stopped answering during
// a solve (killed, restarted, its socket gone): not a registry failure,
// and not retried against a daemon that is not there.
type NodeGoneError struct {
	Addr string // as given; "" when the caller did not name it
	Err  error
}

func (e *NodeGoneError) Error() string {
	node := "the BuildKit node"
	if e.Addr != "" {
		node = "BuildKit node " + redact.URL(e.Addr)
	}
	return redact.Text(fmt.Sprintf("%s stopped answering during the build: %v (was buildkitd stopped or restarted? start it and build again; nothing was tagged)", node, e.Err))
}

func (e *NodeGoneError) Unwrap() error { return e.Err }

// aliveTimeout bounds the liveness question asked after a failed solve.
const aliveTimeout = 3 * time.Second

// nodeGone says whether a failed solve's error means the daemon went
// away: its connection broke mid-solve (gRPC Unavailable with a transport
// failure: a daemon restarted since answers again, but the solve died with
// the old one), or the daemon no longer answers a list of its workers. A
// daemon that answers failed for another reason (a registry's 503 is
// reported by a live daemon).
func nodeGone(ctx context.Context, c *client.Client, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var st interface{ GRPCStatus() *status.Status }
	if errors.As(err, &st) && st.GRPCStatus().Code() == codes.Unavailable && transportBroke.MatchString(st.GRPCStatus().Message()) {
		return true
	}
	actx, cancel := context.WithTimeout(ctx, aliveTimeout)
	defer cancel()
	_, lerr := c.ListWorkers(actx)
	return lerr != nil && ctx.Err() == nil
}

// transportBroke is how gRPC words a connection that broke under a call.
var transportBroke = regexp.MustCompile(`error reading from server|transport is closing|connection reset by peer|broken pipe`)
