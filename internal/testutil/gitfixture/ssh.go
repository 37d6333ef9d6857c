package gitfixture

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/epp-build/epp-build/internal/testenv"
)

// ServeSSH serves the repositories under root over ssh on a loopback
// port, each fetch answered by git upload-pack, and returns the base URL
// (ssh://git@127.0.0.1:PORT; a repository's URL is the base and its
// absolute path). As a user's ssh set-up would, it points SSH_AUTH_SOCK
// at an agent holding the one key the server takes and SSH_KNOWN_HOSTS
// at a file naming the server's host key.
func ServeSSH(t testing.TB, root string) string {
	t.Helper()
	testenv.Tool(t, "git", "the ssh fixture runs git upload-pack")
	hostKey, userKey := newSSHKey(t), newSSHKey(t)
	config := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
		if bytes.Equal(key.Marshal(), userKey.signer.PublicKey().Marshal()) {
			return nil, nil
		}
		return nil, errors.New("unknown key")
	}}
	config.AddHostKey(hostKey.signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go acceptAll(ln, func(c net.Conn) { serveSSHConn(c, config, root) })

	// A socket path must stay short (108 bytes), which a test's own
	// temporary folder may not.
	dir, err := os.MkdirTemp("", "ssh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: userKey.private}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "agent")
	al, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { al.Close() })
	go acceptAll(al, func(c net.Conn) { _ = agent.ServeAgent(keyring, c); c.Close() })
	known := filepath.Join(dir, "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(ln.Addr().String())}, hostKey.signer.PublicKey())
	if err := os.WriteFile(known, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSH_AUTH_SOCK", sock)
	t.Setenv("SSH_KNOWN_HOSTS", known)
	return "ssh://git@" + ln.Addr().String()
}

type sshKey struct {
	private ed25519.PrivateKey
	signer  ssh.Signer
}

func newSSHKey(t testing.TB) sshKey {
	t.Helper()
	_, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(private)
	if err != nil {
		t.Fatal(err)
	}
	return sshKey{private: private, signer: signer}
}

func acceptAll(ln net.Listener, serve func(net.Conn)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go serve(c)
	}
}

func serveSSHConn(c net.Conn, config *ssh.ServerConfig, root string) {
	conn, chans, reqs, err := ssh.NewServerConn(c, config)
	if err != nil {
		c.Close()
		return
	}
	defer conn.Close()
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "sessions only")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go serveSSHSession(ch, chReqs, root)
	}
}

// serveSSHSession runs the one command a fetch asks for, git-upload-pack
// of a repository under root, and refuses anything else.
func serveSSHSession(ch ssh.Channel, reqs <-chan *ssh.Request, root string) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "exec" {
			_ = req.Reply(req.Type == "env", nil)
			continue
		}
		var payload struct{ Command string }
		path, ok := "", false
		if ssh.Unmarshal(req.Payload, &payload) == nil {
			path, ok = strings.CutPrefix(payload.Command, "git-upload-pack ")
			path = strings.Trim(path, "'")
		}
		if rel, err := filepath.Rel(root, path); !ok || err != nil || strings.HasPrefix(rel, "..") {
			_ = req.Reply(false, nil)
			return
		}
		_ = req.Reply(true, nil)
		_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uploadPack(ch, path)}))
		return
	}
}

// uploadPack runs git upload-pack on path over ch and returns its exit
// status. The client's input is copied without waiting for its end: the
// client closes nothing once it has its pack.
func uploadPack(ch ssh.Channel, path string) uint32 {
	cmd := exec.Command("git", "upload-pack", path)
	cmd.Env = Env()
	cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
	in, err := cmd.StdinPipe()
	if err != nil {
		return 1
	}
	if err := cmd.Start(); err != nil {
		return 1
	}
	go func() { _, _ = io.Copy(in, ch); in.Close() }()
	var exit *exec.ExitError
	if err := cmd.Wait(); errors.As(err, &exit) {
		return uint32(exit.ExitCode())
	} else if err != nil {
		return 1
	}
	return 0
}

// SSHURL is the repository's URL under a base returned by ServeSSH for a
// root that holds it.
func (r *Repo) SSHURL(base string) string {
	return base + filepath.ToSlash(r.Dir)
}
