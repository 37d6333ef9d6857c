package source

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/epp-build/epp-build/internal/goenv"
	"github.com/epp-build/epp-build/internal/inputfile"
)

// readNetrc reads the netrc file the go command reads ($NETRC, else
// ~/.netrc or ~/_netrc on Windows), so a private module proxy
// authenticates as it does for `go mod download`; "" when there is none
// or GOAUTH=off turns the lookup off, as it does for the go command.
func readNetrc() string {
	if goenv.Load(nil).Get("GOAUTH") == "off" {
		return ""
	}
	name := os.Getenv("NETRC")
	if name == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		base := ".netrc"
		if runtime.GOOS == "windows" {
			base = "_netrc"
		}
		name = filepath.Join(home, base)
	}
	data, err := inputfile.ReadFile(name, "", netrcLimit)
	if err != nil {
		return ""
	}
	return string(data)
}

// lookupNetrc returns the entry for host in netrc text: the first
// "machine host" entry, else the "default" entry. Macro definitions
// (macdef, up to the next blank line) are skipped.
func lookupNetrc(text, host string) (login, password string, ok bool) {
	type entry struct{ login, password string }
	var tokens []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		fields := strings.Fields(lines[i])
		if len(fields) > 0 && fields[0] == "macdef" {
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			}
			continue
		}
		tokens = append(tokens, fields...)
	}
	var found, fallback, cur *entry
	for i := 0; i < len(tokens); i++ {
		switch tokens[i] {
		case "machine":
			cur = nil
			if i+1 < len(tokens) {
				i++
				if tokens[i] == host && found == nil {
					found = &entry{}
					cur = found
				}
			}
		case "default":
			cur = nil
			if fallback == nil {
				fallback = &entry{}
				cur = fallback
			}
		case "login", "password", "account":
			if i+1 >= len(tokens) {
				break
			}
			key, value := tokens[i], tokens[i+1]
			i++
			switch {
			case cur == nil:
			case key == "login":
				cur.login = value
			case key == "password":
				cur.password = value
			}
		}
	}
	for _, e := range []*entry{found, fallback} {
		if e != nil && e.login != "" {
			return e.login, e.password, true
		}
	}
	return "", "", false
}
