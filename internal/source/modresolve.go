package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// ModuleVersion is what the module proxy has for a ref of the upstream: the
// canonical version (a pseudo-version for a commit), the h1: hash of its
// zip and the commit its .info says it was built from ("" when the proxy
// does not say).
type ModuleVersion struct {
	Version string
	Hash    string
	Commit  string
}

// ResolveModule asks the module proxy (GOPROXY, as the go command reads
// it) which version of mod ref is (a tag, or a commit the proxy answers
// with its pseudo-version), downloads that version's zip, checks it with
// the go command's zip rules and hashes it as go.sum does. It is for
// authoring a new pin (rebase --onto); a pin is verified by Fetch.
func ResolveModule(ctx context.Context, mod, ref string) (ModuleVersion, error) {
	proxies, err := newProxyClient(mod)
	if err != nil {
		return ModuleVersion{}, err
	}
	info, proxy, err := proxies.info(ctx, mod, ref)
	if err != nil {
		return ModuleVersion{}, err
	}
	mv := module.Version{Path: mod, Version: info.Version}
	if err := module.Check(mod, info.Version); err != nil || module.CanonicalVersion(info.Version) != info.Version {
		return ModuleVersion{}, fmt.Errorf("module proxy %s: %s@%s.info names version %q, which is not a canonical version of the module", proxy, mod, ref, info.Version)
	}
	tmp, err := os.MkdirTemp("", "epp-build-module-")
	if err != nil {
		return ModuleVersion{}, err
	}
	defer os.RemoveAll(tmp)
	zipPath := filepath.Join(tmp, "module.zip")
	if proxy, err = proxies.zip(ctx, mod, info.Version, zipPath); err != nil {
		return ModuleVersion{}, err
	}
	if _, err := modzip.CheckZip(mv, zipPath); err != nil {
		return ModuleVersion{}, fmt.Errorf("module zip %s from %s: %w", mv, proxy, err)
	}
	hash, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		return ModuleVersion{}, fmt.Errorf("module zip %s from %s: %w", mv, proxy, err)
	}
	out := ModuleVersion{Version: info.Version, Hash: hash}
	if info.Origin != nil {
		out.Commit = info.Origin.Hash
	}
	return out, nil
}
