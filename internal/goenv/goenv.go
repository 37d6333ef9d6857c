// Package goenv reads the go command's settings where the go command
// reads them: the environment, then the go env file that `go env -w`
// writes, then the go command's defaults. Every fetch reads them here, so
// a setting made with `go env -w` reaches the upstream fetch and the
// fetches inside the BuildKit solve alike.
package goenv

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// Defaults are the go command's values for the settings that have one
// (GOROOT/go.env's), used when neither the environment nor the go env
// file sets them.
var Defaults = map[string]string{
	"GOPROXY": "https://proxy.golang.org,direct",
	"GOSUMDB": "sum.golang.org",
}

var envFileLimit = inputfile.Limit{Bytes: 1 << 20, What: "a go env file", Raise: "it is not what `go env -w` writes; set GOENV to the right file or to off"}

// Settings are the go command's settings as one process sees them.
type Settings struct {
	env  map[string]string
	file map[string]string
}

// Load reads the settings of environ (nil: this process's environment)
// and of the go env file it names. A go env file that cannot be read
// adds nothing, as for the go command.
func Load(environ []string) Settings {
	if environ == nil {
		environ = os.Environ()
	}
	s := Settings{env: map[string]string{}, file: map[string]string{}}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			s.env[k] = v // the last of a repeated name wins, as for exec
		}
	}
	if name := s.envFile(); name != "" {
		if data, err := inputfile.ReadFile(name, "", envFileLimit); err == nil {
			s.file = parseEnvFile(data)
		}
	}
	return s
}

// Get is key as set: the environment's value unless empty, else the go env
// file's; "" when neither sets it. What is built inside the solve takes
// these, leaving the rest to the go command there.
func (s Settings) Get(key string) string {
	if v := s.env[key]; v != "" {
		return v
	}
	return s.file[key]
}

// Value is Get, or the go command's default when key is not set.
func (s Settings) Value(key string) string {
	if v := s.Get(key); v != "" {
		return v
	}
	return Defaults[key]
}

// envFile is the go env file's name as the go command finds it: GOENV,
// else go/env in the user's configuration folder; "" for GOENV=off.
func (s Settings) envFile() string {
	if v := s.env["GOENV"]; v != "" {
		if v == "off" {
			return ""
		}
		return v
	}
	dir, err := s.userConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "go", "env")
}

// userConfigDir is os.UserConfigDir for the environment s was loaded
// from, which need not be this process's.
func (s Settings) userConfigDir() (string, error) {
	switch runtime.GOOS {
	case "windows", "plan9":
		return os.UserConfigDir() // epp-build is not built for them
	case "darwin", "ios":
		if v := s.env["HOME"]; v != "" {
			return filepath.Join(v, "Library", "Application Support"), nil
		}
	default:
		if v := s.env["XDG_CONFIG_HOME"]; v != "" {
			if !filepath.IsAbs(v) {
				return "", errors.New("XDG_CONFIG_HOME is a relative path")
			}
			return v, nil
		}
		if v := s.env["HOME"]; v != "" {
			return filepath.Join(v, ".config"), nil
		}
	}
	return "", errors.New("no user configuration folder")
}

// parseEnvFile reads KEY=VALUE lines as the go command does: the value
// is the rest of the line, untrimmed; a line without "=" or not starting
// with a capital letter is skipped; a later line wins.
func parseEnvFile(data []byte) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok || line[0] < 'A' || line[0] > 'Z' {
			continue
		}
		out[k] = v
	}
	return out
}
