package source

import (
	"net/http"
	neturl "net/url"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/epp-build/epp-build/internal/netclient"
	"github.com/epp-build/epp-build/internal/redact"
)

// go-git's http(s) transport is http.DefaultClient, which has no deadline:
// a git server that accepts the connection and never answers held the
// fetch for ever. deadlineTransport gives every git session the module
// proxy's and the registry's deadlines (netclient), read from the
// environment when the session starts, and the budget of gitbudget.go.
type deadlineTransport struct{}

func (deadlineTransport) client() transport.Transport {
	t, err := netclient.FromEnv()
	if err != nil {
		t = netclient.Timeouts{Connect: netclient.DefaultConnect, Header: netclient.DefaultHeader, Stall: netclient.DefaultStall}
	}
	return githttp.NewClient(&http.Client{Transport: gitBudgetTransport{netclient.Transport(t)}})
}

func (d deadlineTransport) NewUploadPackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	return d.client().NewUploadPackSession(ep, auth)
}

func (d deadlineTransport) NewReceivePackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.ReceivePackSession, error) {
	return d.client().NewReceivePackSession(ep, auth)
}

var installDeadlines sync.Once

// useGitDeadlines installs deadlineTransport for http and https, once per
// process, before the first git request.
func useGitDeadlines() {
	installDeadlines.Do(func() {
		client.InstallProtocol("http", deadlineTransport{})
		client.InstallProtocol("https", deadlineTransport{})
	})
}

// gitAuth is the credential for an http(s) repository URL without one of
// its own: the netrc entry for its host (see netrc.go), as git reads
// ~/.netrc. nil leaves the URL's userinfo, if any, to the transport.
func gitAuth(repo string) transport.AuthMethod {
	u, err := neturl.Parse(repo)
	if err != nil || u.User != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	login, password, ok := lookupNetrc(readNetrc(), u.Hostname())
	if !ok {
		return nil
	}
	redact.Remember(login, password)
	return &githttp.BasicAuth{Username: login, Password: password}
}
