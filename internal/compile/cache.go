package compile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Go does not cache linked executables, and a static external link per
// arch is the slowest part of a warm rebuild; so binaries are cached by
// everything that goes into them: the module tree (go.sum pins the
// dependencies; the staged C API libraries are inside it), the package, the
// target, the compilers and the Go-relevant environment.

// envKeys are the variables that change what go build produces.
var envKeys = []string{"GOFLAGS", "GOEXPERIMENT", "GOAMD64", "GOARM64", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_LDFLAGS", "GOTOOLCHAIN", "GOPROXY", "GONOSUMDB"}

func binaryKey(ctx context.Context, base []string, opt HostOptions, t HostTarget, treeHash string) (string, error) {
	gover, err := toolVersion(ctx, base, "go", "env", "GOVERSION")
	if err != nil {
		return "", err
	}
	ccver, err := toolVersion(ctx, base, t.CC, "-dumpfullversion")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "compile-v1\ntree=%s\npkg=%s\narch=%s\ncc=%s %s\ngo=%s\nflags=%s\n",
		treeHash, opt.Package, t.Platform.GOARCH, t.CC, ccver, gover, strings.Join(buildFlags(opt.Tags), " "))
	for _, k := range envKeys {
		fmt.Fprintf(h, "%s=%s\n", k, lookup(base, k))
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

func lookup(environ []string, key string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(environ[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

func toolVersion(ctx context.Context, environ []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = environ
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// treeHash hashes the Go module tree: paths, exec bits and contents.
func treeHash(dir string) (string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		st, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			fmt.Fprintf(h, "L %q %q\n", rel, target)
			continue
		}
		fmt.Fprintf(h, "F %q %d %t\n", rel, st.Size(), st.Mode()&0o111 != 0)
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
