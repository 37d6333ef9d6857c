package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb"
	"golang.org/x/mod/sumdb/note"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/goenv"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/redact"
)

// The go command's default checksum database and the key it knows it by
// (cmd/go/internal/modfetch/key.go).
const (
	defaultGOSUMDB = "sum.golang.org"
	sumGolangKey   = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8"
)

// errSumDBOff is a module the checksum database is not asked about
// (GOSUMDB=off, GONOSUMDB, GOPRIVATE): nothing confirms its hash.
var errSumDBOff = errors.New("not checked against a checksum database")

// sumConfirmation says which checksum database confirmed a hash, and
// through what URL.
type sumConfirmation struct {
	Name, Via string
}

// confirmSum asks the Go checksum database, as the go command does, whether
// it records hash for mod@version. The database is GOSUMDB (default
// sum.golang.org), reached through the first GOPROXY entry that supports
// proxying it (<proxy>/sumdb/<name>/supported), else directly; its signed
// tree head and inclusion proofs are checked with its key. The latest tree
// head seen is kept under cacheRoot, so a database that forks its log is
// caught as the go command catches it.
func (p *proxyClient) confirmSum(ctx context.Context, cacheRoot, mod, version, hash string) (*sumConfirmation, error) {
	env := goenv.Load(nil)
	setting := env.Value("GOSUMDB")
	if setting == "off" {
		return nil, fmt.Errorf("GOSUMDB=off: %w", errSumDBOff)
	}
	noSum := "GONOSUMDB"
	patterns := env.Get(noSum)
	if patterns == "" {
		noSum, patterns = "GOPRIVATE", env.Get("GOPRIVATE")
	}
	if patterns != "" && module.MatchPrefixPatterns(patterns, mod) {
		return nil, fmt.Errorf("%s matches %s=%s: %w", mod, noSum, patterns, errSumDBOff)
	}
	if setting == "sum.golang.google.cn" {
		setting = "sum.golang.org https://sum.golang.google.cn"
	}
	fields := strings.Fields(setting)
	if len(fields) == 0 || len(fields) > 2 {
		return nil, fmt.Errorf("GOSUMDB=%q: want a name, a key, or a key and a URL", setting)
	}
	key := fields[0]
	if key == defaultGOSUMDB {
		key = sumGolangKey
	}
	verifier, err := note.NewVerifier(key)
	if err != nil {
		return nil, fmt.Errorf("GOSUMDB: %w", err)
	}
	name := verifier.Name()
	if name == "" || strings.ContainsAny(name, `\`) || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.Contains(name, "..") {
		return nil, fmt.Errorf("GOSUMDB: database name %q is not host[/path]", name)
	}
	ops := &sumdbOps{ctx: ctx, proxies: p, key: key, name: name, latestDir: filepath.Join(cacheRoot, "sumdb"), tiles: map[string][]byte{}}
	if len(fields) == 2 {
		if u, err := url.Parse(fields[1]); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("GOSUMDB: %q is not an http(s):// URL", redact.Text(fields[1]))
		}
		ops.base = strings.TrimSuffix(fields[1], "/")
		rememberUserinfo(ops.base)
	}
	client := sumdb.NewClient(ops)
	lines, err := client.Lookup(mod, version)
	if ops.security != nil {
		return nil, ops.security
	}
	if err != nil {
		return nil, fmt.Errorf("checksum database %s (via %s): %w", name, ops.shownBase(), err)
	}
	want := mod + " " + version + " " + hash
	for _, l := range lines {
		if l == want {
			return &sumConfirmation{Name: name, Via: ops.shownBase()}, nil
		}
	}
	return nil, fmt.Errorf("checksum database %s (via %s) records %s@%s as %s, not %s", name, ops.shownBase(), mod, version, recordedHash(lines, mod, version), hash)
}

// recordedHash is the zip hash among a lookup's lines.
func recordedHash(lines []string, mod, version string) string {
	for _, l := range lines {
		if h, ok := strings.CutPrefix(l, mod+" "+version+" "); ok {
			return h
		}
	}
	return "nothing"
}

// sumdbOps is sumdb.ClientOps over the GOPROXY list: remote reads go to the
// database's base URL, the tree head is kept in the cache, tiles in memory.
type sumdbOps struct {
	ctx       context.Context
	proxies   *proxyClient
	key, name string
	latestDir string

	once sync.Once
	base string // the database's URL: a proxy's /sumdb/<name>, or https://<name>
	err  error

	mu       sync.Mutex
	tiles    map[string][]byte
	security error
}

// resolveBase finds the database's URL as the go command does: the first
// GOPROXY entry whose /sumdb/<name>/supported answers; after a 404 or 410
// (or any error before a "|") the next; "direct", "off" or the end of the
// list mean the database itself.
func (o *sumdbOps) resolveBase() {
	if o.base != "" {
		return
	}
	rel := "sumdb/" + o.name + "/supported"
	for _, e := range o.proxies.entries {
		if e.url == "direct" || e.url == "off" {
			break
		}
		err := o.proxies.get(o.ctx, e.url, rel, func() (io.WriteCloser, error) { return &bufferCloser{}, nil })
		if err == nil {
			o.base = e.url + "/sumdb/" + o.name
			return
		}
		if !e.anyError && !errors.Is(err, errProxyNotFound) {
			o.err = fmt.Errorf("%s: %w", e.shown, err)
			return
		}
	}
	o.base = "https://" + o.name
}

func (o *sumdbOps) shownBase() string {
	if o.base == "" {
		return "no URL"
	}
	return redact.URL(o.base)
}

func (o *sumdbOps) ReadRemote(path string) ([]byte, error) {
	o.once.Do(o.resolveBase)
	if o.err != nil {
		return nil, o.err
	}
	var buf bufferCloser
	err := o.proxies.get(o.ctx, o.base, strings.TrimPrefix(path, "/"), func() (io.WriteCloser, error) {
		buf.Reset()
		return &buf, nil
	})
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (o *sumdbOps) latestFile(file string) (string, error) {
	if file != o.name+"/latest" {
		return "", fmt.Errorf("checksum database config %q", file)
	}
	return filepath.Join(o.latestDir, filepath.FromSlash(file)), nil
}

func (o *sumdbOps) ReadConfig(file string) ([]byte, error) {
	if file == "key" {
		return []byte(o.key), nil
	}
	name, err := o.latestFile(file)
	if err != nil {
		return nil, err
	}
	data, err := inputfile.ReadFile(name, "", cacheNoteLimit)
	if errors.Is(err, os.ErrNotExist) {
		return []byte{}, nil
	}
	return data, err
}

func (o *sumdbOps) WriteConfig(file string, old, new []byte) error {
	name, err := o.latestFile(file)
	if err != nil {
		return err
	}
	if cur, err := inputfile.ReadFile(name, "", cacheNoteLimit); err == nil && len(cur) > 0 && !bytes.Equal(cur, old) {
		return sumdb.ErrWriteConflict
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(name, new, 0o644)
}

func (o *sumdbOps) ReadCache(file string) ([]byte, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if data, ok := o.tiles[file]; ok {
		return data, nil
	}
	return nil, os.ErrNotExist
}

func (o *sumdbOps) WriteCache(file string, data []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.tiles[file] = data
}

func (o *sumdbOps) Log(string) {}

// SecurityError is a database that contradicts itself (a forked log, a
// bad proof): the lookup fails with it.
func (o *sumdbOps) SecurityError(msg string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.security == nil {
		o.security = fmt.Errorf("checksum database %s: %s", o.name, redact.Excerpt([]byte(msg)))
	}
}
