package goenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envFile(t *testing.T, text string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "env")
	require.NoError(t, os.WriteFile(name, []byte(text), 0o644))
	return name
}

func TestTheEnvironmentOverTheFileOverTheDefault(t *testing.T) {
	file := envFile(t, "GOPROXY=https://file.example\nGOPRIVATE=file.example/*\nGOFLAGS=-mod=mod\n")
	s := Load([]string{"GOENV=" + file, "GOPRIVATE=env.example/*", "GOFLAGS="})

	assert.Equal(t, "https://file.example", s.Value("GOPROXY"), "the file over the default")
	assert.Equal(t, "env.example/*", s.Get("GOPRIVATE"), "the environment over the file")
	assert.Equal(t, "-mod=mod", s.Get("GOFLAGS"), "an empty variable leaves the file's value, as for the go command")
	assert.Equal(t, "sum.golang.org", s.Value("GOSUMDB"), "the default when neither sets it")
	assert.Equal(t, "", s.Get("GOSUMDB"))
	assert.Equal(t, "", s.Get("GONOSUMDB"))
}

func TestGOENVOffReadsNoFile(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "")
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".config", "go"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".config", "go", "env"), []byte("GOPROXY=off\n"), 0o644))

	assert.Equal(t, Defaults["GOPROXY"], Load([]string{"GOENV=off", "HOME=" + home}).Value("GOPROXY"))
	if runtime.GOOS == "linux" {
		assert.Equal(t, "off", Load([]string{"HOME=" + home}).Get("GOPROXY"), "the file in the user's configuration folder")
	}
}

func TestTheFileIsReadAsTheGoCommandWritesIt(t *testing.T) {
	file := envFile(t, "# a comment\nGOPROXY=first\nnot a setting\nGOPROXY=https://a.example, direct \ngoproxy=lower\n")
	assert.Equal(t, "https://a.example, direct ", Load([]string{"GOENV=" + file}).Get("GOPROXY"), "the last line wins, untrimmed")
	assert.Equal(t, "", Load([]string{"GOENV=" + filepath.Join(t.TempDir(), "missing")}).Get("GOPROXY"))
}
