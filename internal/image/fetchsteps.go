package image

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/moby/buildkit/session"
	"github.com/moby/buildkit/session/secrets/secretsprovider"
)

// The container Dockerfile's steps that fetch (the EPP's Go modules, the C
// API's crates, cbindgen's cargo metadata) get the build's fetch settings
// as BuildKit secrets, mounted in those steps only: a secret is never
// written into a layer, is not part of a step's cache key and is not
// recorded in the provenance, so neither a credential nor a CA bundle
// ends up in the image, the cache or the attestations, and a cached build
// is reused whatever proxy a runner fetches through (go.sum and
// Cargo.lock pin what is fetched).

// Secret ids and mount targets of the fetch settings.
const (
	// FetchSecret is a shell script the fetch steps source: it exports the
	// Go and cargo settings and points them at the CA bundle.
	FetchSecret = "epp-build-fetch"
	// CASecret is the extra CA bundle (PEM) the fetches trust.
	CASecret = "epp-build-ca"
	// CargoConfigSecret is a generated cargo config (source replacement),
	// mounted where cargo finds it from any folder: /.cargo/config.toml.
	CargoConfigSecret = "epp-build-cargo-config"

	fetchScriptPath = "/run/epp-build/fetch.sh"
	caPath          = "/run/epp-build/ca.pem"
	cargoConfigPath = "/.cargo/config.toml"
	// tlsDir is a tmpfs where the CA bundle is joined to the builder's
	// own trust store (cargo's CAINFO replaces the system store).
	tlsDir = "/run/epp-build-tls"
)

// envName is a secret id the fetch steps also export as an environment
// variable (GOPROXY, CARGO_REGISTRIES_X_TOKEN).
var envName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// fetchMounts are the RUN flags of a fetch step: the three settings
// secrets, a tmpfs for the joined CA bundle, and every --secret by id
// (at /run/secrets/ID, as buildx mounts it). A secret the session does
// not have is not mounted (required=false is the default).
func fetchMounts(ids []string) string {
	mounts := []string{
		"--mount=type=secret,id=" + FetchSecret + ",target=" + fetchScriptPath,
		"--mount=type=secret,id=" + CASecret + ",target=" + caPath,
		"--mount=type=secret,id=" + CargoConfigSecret + ",target=" + cargoConfigPath,
		"--mount=type=tmpfs,target=" + tlsDir,
	}
	for _, id := range sortedUnique(ids) {
		mounts = append(mounts, "--mount=type=secret,id="+id)
	}
	return strings.Join(mounts, " \\\n    ")
}

// sourceFetch is the shell the fetch steps run first.
const sourceFetch = "if [ -f " + fetchScriptPath + " ]; then . " + fetchScriptPath + "; fi && "

// FetchScript is the FetchSecret's content: the fetch steps source it.
// env is exported as it is (values are single-quoted); each of
// envSecrets (a --secret id that names an environment variable) is
// exported from its mounted file; a netrc secret is the go command's
// NETRC. With the CA bundle mounted, the builder's system bundle and it are
// joined on a tmpfs and named as SSL_CERT_FILE (Go, curl), CARGO_HTTP_CAINFO
// and GIT_SSL_CAINFO.
func FetchScript(env map[string]string, secretIDs []string) []byte {
	var b strings.Builder
	b.WriteString("# epp-build: settings for the steps that fetch Go modules and crates\n")
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(env[k]))
	}
	for _, id := range sortedUnique(secretIDs) {
		switch {
		case id == "netrc":
			b.WriteString("export NETRC=/run/secrets/netrc\n")
		case envName.MatchString(id):
			fmt.Fprintf(&b, "if [ -f /run/secrets/%[1]s ]; then %[1]s=$(cat /run/secrets/%[1]s); export %[1]s; fi\n", id)
		}
	}
	b.WriteString(`if [ -s ` + caPath + ` ]; then
  bundle=` + tlsDir + `/ca-bundle.pem
  : >"$bundle"
  for f in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
    if [ -f "$f" ]; then cat "$f" >>"$bundle"; echo >>"$bundle"; break; fi
  done
  cat ` + caPath + ` >>"$bundle"
  export SSL_CERT_FILE="$bundle" CARGO_HTTP_CAINFO="$bundle" GIT_SSL_CAINFO="$bundle"
fi
`)
	return []byte(b.String())
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func sortedUnique(ids []string) []string {
	out := append([]string(nil), ids...)
	sort.Strings(out)
	n := 0
	for i, id := range out {
		if i == 0 || id != out[i-1] {
			out[n] = id
			n++
		}
	}
	return out[:n]
}

// secretsAttachable gives the solve's session the secrets; none without
// any.
func secretsAttachable(secrets map[string][]byte) []session.Attachable {
	if len(secrets) == 0 {
		return nil
	}
	return []session.Attachable{secretsprovider.FromMap(secrets)}
}
