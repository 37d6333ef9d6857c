package source

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// Identity of the commit synthesized from a module zip.
const (
	synthName  = "epp-build"
	synthEmail = "epp-build@invalid"
)

// goProxyKey is the cache key and expectation of a module proxy entry.
func goProxyKey(pin recipe.Upstream) (string, expectation) {
	sum := sha256.Sum256([]byte(pin.Module + "@" + pin.ModuleVersion + " " + pin.ModuleHash))
	return "mod-" + hex.EncodeToString(sum[:]), expectation{commit: pin.Commit, module: pin.Module, moduleVersion: pin.ModuleVersion, moduleHash: pin.ModuleHash}
}

// fetchGoProxy downloads the pinned module version, checks its h1: hash and
// origin commit, and caches it as a single synthesized commit. A version
// whose .info names no commit (no Origin) is taken only when the Go
// checksum database confirms the zip's hash, and the commit message says
// so.
func fetchGoProxy(ctx context.Context, c *cache, req Request) (*Tree, error) {
	pin := req.Pin
	if !req.hasModule() {
		return nil, errors.New("the goproxy source needs upstream.module, upstream.moduleVersion and upstream.moduleHash in the recipe")
	}
	key, want := goProxyKey(pin)
	return c.get(ctx, key, want, func(ctx context.Context, tmp string) (*entryMeta, error) {
		proxies, err := newProxyClient(pin.Module)
		if err != nil {
			return nil, err
		}
		proxies.progress = req.Progress
		mv := pin.Module + "@" + pin.ModuleVersion
		info, proxy, err := proxies.info(ctx, pin.Module, pin.ModuleVersion)
		if err != nil {
			return nil, err
		}
		noOrigin := info.Origin == nil || info.Origin.Hash == ""
		if !noOrigin && info.Origin.Hash != pin.Commit {
			return nil, &MismatchError{Ref: mv, Want: pin.Commit, Got: info.Origin.Hash, Repository: proxy}
		}
		zipPath := filepath.Join(tmp, "module.zip")
		defer os.Remove(zipPath)
		if proxy, err = proxies.zip(ctx, pin.Module, pin.ModuleVersion, zipPath); err != nil {
			return nil, err
		}
		got, err := dirhash.HashZip(zipPath, dirhash.Hash1)
		if err != nil {
			return nil, fmt.Errorf("module zip %s from %s: %w", mv, proxy, err)
		}
		if got != pin.ModuleHash {
			return nil, &ModuleHashError{Module: mv, Proxy: proxy, Want: pin.ModuleHash, Got: got}
		}
		origin := proxy + " " + mv
		provenance := fmt.Sprintf("Upstream commit %s (%s %s).\n", info.Origin.HashOr(), redact.URL(info.Origin.URLOr()), textsafe.Escape(info.Origin.RefOr()))
		if noOrigin {
			// The proxy does not say which commit it zipped. The content is
			// taken when the zip has the recipe's hash and the Go checksum
			// database confirms that hash for this version; the recipe's
			// hash is tied to its commit whenever the tree comes from git.
			sum, err := proxies.confirmSum(ctx, filepath.Dir(c.root), pin.Module, pin.ModuleVersion, got)
			if err != nil {
				return nil, fmt.Errorf("module proxy %s: %s.info has no Origin, so the proxy does not say which commit it was built from (upstream.commit %s), and the checksum database does not confirm its hash %s: %w; refusing it (use the git source)", proxy, mv, pin.Commit, got, err)
			}
			origin += fmt.Sprintf(" (no Origin: commit not stated by the proxy; hash confirmed by checksum database %s)", sum.Name)
			provenance = fmt.Sprintf("The module proxy did not state the commit it built this version from (its .info\n"+
				"has no Origin). The content was verified instead: the zip's hash is the recipe's\n"+
				"upstream.moduleHash, %s, and checksum database %s records\n"+
				"that hash for %s (looked up via %s).\n"+
				"The recipe pins upstream commit %s; the proxy did not confirm it.\n",
				got, sum.Name, mv, sum.Via, pin.Commit)
		}
		s := memory.NewStorage()
		commit, err := commitFromZip(s, zipPath, module.Version{Path: pin.Module, Version: pin.ModuleVersion}, info, provenance)
		if err != nil {
			return nil, fmt.Errorf("module zip %s: %w", mv, err)
		}
		if err := os.Remove(zipPath); err != nil {
			return nil, err
		}
		m := &entryMeta{Via: GoProxy, Commit: pin.Commit, Origin: origin, Ref: pin.Ref,
			Module: pin.Module, ModuleVersion: pin.ModuleVersion, ModuleHash: pin.ModuleHash}
		if err := buildFromObjects(ctx, tmp, s, commit, m); err != nil {
			return nil, err
		}
		return m, nil
	})
}

// commitFromZip stores the zip's files as blobs and trees in s and makes
// them one parentless commit dated at the proxy's time.
func commitFromZip(s *memory.Storage, zipPath string, mv module.Version, info *moduleInfo, provenance string) (plumbing.Hash, error) {
	if _, err := modzip.CheckZip(mv, zipPath); err != nil {
		return plumbing.ZeroHash, err
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer zr.Close()
	prefix := mv.Path + "@" + mv.Version + "/"
	var files []fileEntry
	for _, f := range zr.File {
		name, ok := strings.CutPrefix(f.Name, prefix)
		if !ok || strings.HasSuffix(f.Name, "/") {
			continue // CheckZip has already refused anything outside the prefix
		}
		h, size, script, err := storeZipBlob(s, f)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("%s: %w", f.Name, err)
		}
		// Module zips carry no modes. A file that starts with "#!" is a
		// script meant to be run, so it gets the executable bit git gave it.
		mode := uint32(modeRegular)
		if script {
			mode = modeExecutable
		}
		files = append(files, fileEntry{Path: name, Mode: mode, Hash: h.String(), Size: size})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	root, err := storeTrees(s, files)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	sig := object.Signature{Name: synthName, Email: synthEmail, When: info.Time.UTC()}
	c := &object.Commit{
		Author:    sig,
		Committer: sig,
		TreeHash:  root,
		Message: fmt.Sprintf("%s@%s from the Go module proxy\n\n%s"+
			"Files as served by the module proxy; nested modules are not carried, and files that\n"+
			"start with #! are made executable (the module zip has no modes).\n",
			mv.Path, mv.Version, provenance),
	}
	obj := s.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

// storeZipBlob stores one zip member as a blob; script says whether it
// starts with "#!".
func storeZipBlob(s *memory.Storage, f *zip.File) (h plumbing.Hash, size int64, script bool, err error) {
	r, err := f.Open()
	if err != nil {
		return plumbing.ZeroHash, 0, false, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return plumbing.ZeroHash, 0, false, err
	}
	script = bytes.HasPrefix(data, []byte("#!"))
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, 0, false, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, 0, false, err
	}
	w.Close()
	h, err = s.SetEncodedObject(obj)
	return h, int64(len(data)), script, err
}

// storeTrees writes the tree objects for files into s and returns the root.
func storeTrees(s *memory.Storage, files []fileEntry) (plumbing.Hash, error) {
	var storeErr error
	root, _, err := buildTrees(files, func(body []byte) {
		obj := s.NewEncodedObject()
		obj.SetType(plumbing.TreeObject)
		obj.SetSize(int64(len(body)))
		w, _ := obj.Writer()
		w.Write(body)
		w.Close()
		if _, err := s.SetEncodedObject(obj); err != nil && storeErr == nil {
			storeErr = err
		}
	})
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return plumbing.Hash(root), storeErr
}
