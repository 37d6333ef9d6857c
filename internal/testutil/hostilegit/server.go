package hostilegit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Serve is a smart-http git server of one repository at URL/repo.git
// advertising refs/tags/v1 at tip, which answers any upload-pack request
// with what respond writes (shallow lines, "0000", "NAK", the pack: see
// Response). It closes with the test.
func Serve(t testing.TB, tip [20]byte, respond func(w io.Writer)) string {
	t.Helper()
	return serve(t, tip, "shallow no-progress allow-reachable-sha1-in-want ofs-delta", respond)
}

// ServeRefsOnly is Serve from a server that hands out no commit by hash
// (git's default), so that a commit pin not at a ref's tip is looked for
// in the history of the refs.
func ServeRefsOnly(t testing.TB, tip [20]byte, respond func(w io.Writer)) string {
	t.Helper()
	return serve(t, tip, "shallow no-progress ofs-delta", respond)
}

func serve(t testing.TB, tip [20]byte, caps string, respond func(w io.Writer)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/info/refs"):
			w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
			io.WriteString(w, PktLine("# service=git-upload-pack\n")+"0000"+
				PktLine(Hex(tip)+" refs/tags/v1\x00"+caps+"\n")+"0000")
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack"):
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
			respond(w)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/repo.git"
}

// Response writes a depth-1 answer: one shallow line for tip's commit,
// the end of the shallow lines, NAK and pack.
func Response(commit [20]byte, pack []byte) func(io.Writer) {
	return func(w io.Writer) {
		io.WriteString(w, Shallow(1, commit)+"0000"+PktLine("NAK\n"))
		w.Write(pack)
	}
}

// Endless writes chunk until the client hangs up, after prefix.
func Endless(prefix, chunk []byte) func(io.Writer) {
	return func(w io.Writer) {
		if _, err := w.Write(prefix); err != nil {
			return
		}
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
}
