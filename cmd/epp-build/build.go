package main

import (
	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/pipeline"
	"github.com/epp-build/epp-build/internal/platform"
)

func newBuildCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var opt pipeline.Options
	var platforms []string
	var tree string
	var goSettings map[string]string // flag name -> Go setting
	var ci ciFlags
	cmd := &cobra.Command{
		Use:   "build --version V [--version V...] --image REF [--tag REF...] [--platform P,...] (--push | --oci-tar FILE)",
		Short: "Apply the version, build the C API per arch and the multi-arch EPP image in one BuildKit solve",
		Long: `build applies the version (reusing the cache and an already applied tree), builds the
Dynamo C API with cargo for every platform (the recipe's capi pin, or --capi-src),
checks the Go binding's prototypes against the library's header, compiles the EPP,
and builds every platform in ONE BuildKit solve (or each platform on its own
node, below). With --push the image is pushed by
digest, its index verified (each platform present with the right OS, architecture
and ELF machine), its entrypoint run with --help per platform, and only then tagged:
a failed build never moves the tag. --report writes what went in and what came out
as JSON.

Compile modes (--compile), never emulated:
  host       cargo and cgo run here, cross-compiling for each platform (needs Rust
             with both std, cbindgen, gcc for both arches and Go on this machine);
             the solve only assembles the images.
  container  everything runs inside the solve, in --builder-image on the build
             platform: cargo builds the C API per target platform (cargo's home and
             target folder are BuildKit cache mounts; a crate with dependencies needs
             crates.io or a mirror reachable from buildkitd), then the EPP is built
             with cgo against it. The prototype check still runs here, between the
             two, and still fails the build. This machine needs only epp-build, the
             source it fetches and a BuildKit address.

Attestations: BuildKit attaches SLSA provenance (--provenance, default mode=max) and
an SPDX SBOM (--sbom, default BuildKit's generator docker/buildkit-syft-scanner;
generator=IMAGE names another) to every platform image. With --push the report
(upstream and commit, each patch's SHA-256, the C API source, toolchains, digests)
is attached to the index as an in-toto attestation, and all of them are checked
before the tag is set; read them back with ` + "`epp-build inspect REF`" + `.
--sign-key FILE signs the report attestation (a DSSE envelope where cosign keeps
attestations, sha256-<index hex>.att) before the tag is set; the key is cosign's
(password in $COSIGN_PASSWORD) or a PEM private key, in a file or, as cosign takes
it, in an environment variable (--sign-key env://VAR). Check it with
` + "`epp-build verify --key cosign.pub`" + ` or ` + "`cosign verify-attestation`" + `.

BuildKit: --buildkit or BUILDKIT_HOST (unix://, tcp:// with --tls-*,
docker-container://). One address builds every platform in one solve. To build
each platform natively on its own node, give PLATFORM=ADDR for every platform
(repeated flags or a comma list): every node is connected first (one that is down
fails the build in seconds, naming it), each pushes its platform by digest, and
one index of them all is pushed, verified, smoke-run per node and tagged once.
Registry credentials come from the Docker config; they are never printed.

Cache: --cache-from and --cache-to take buildx's syntax (repeatable):
type=registry,ref=REF[,mode=max][,ignore-error=true], type=local,src=DIR or
dest=DIR, type=inline; a bare REF means type=registry,ref=REF. An import from a
missing ref warns and builds without it; a failed export fails the build before
the tag unless ignore-error=true. With --insecure, registry caches use plain
HTTP too. With per-platform nodes each node's cache ref gets the platform as a
tag suffix (REF-linux-arm64).

Fetches inside the solve (container mode): the EPP's Go modules and the C API's
crates are fetched with GOPROXY, GONOPROXY, GOPRIVATE, GONOSUMDB, GOSUMDB, GOFLAGS
and CARGO_REGISTRIES_* / CARGO_REGISTRY_* taken from this environment, as go and
cargo take them; --goproxy and the like override them. --ca-bundle FILE adds CAs
(a TLS-intercepting proxy's) to what those fetches trust (SSL_CERT_FILE,
CARGO_HTTP_CAINFO); --cargo-mirror URL replaces crates.io. --secret
id=ID,src=FILE|env=VAR is mounted at /run/secrets/ID in the fetch steps only (an
ID that names a variable, such as GOPROXY or CARGO_REGISTRIES_X_TOKEN, is also
exported as it; id=netrc is the go command's NETRC). These reach the solve as
BuildKit secrets: never in a layer, the cache or the provenance; the report
records the settings with credentials masked. --build-arg KEY=VALUE is a build
arg, as buildx passes it (HTTPS_PROXY, NO_PROXY reach every step). A fetch that
fails names what it fetched, from where, and the flag that fixes it.

CI: the recipes are built into this binary, so it runs from an empty folder
(--patches DIR, or ./patches when present, wins). A preflight first checks every
external thing the build needs (nodes, builder, SBOM-generator and base images on
the node, the registry's push access, the C API source) and lists all that are
missing, each with its flag (exit 8). --version repeats (one connection to the
nodes, shared caches). --image (once) and --tag/-t (repeatable, same repository;
a bare tag such as latest is one of --image's repository, as ko's --tags) and
--report are templates: {{.Version}}, {{.UpstreamRef}}, {{.UpstreamCommit}},
{{.ShortCommit}}. Labels and index/manifest annotations default to the OCI source,
revision, version and created; --label and --annotation ([TYPE,...:]KEY=VALUE, as
buildx) go over them. --metadata-file writes buildx's metadata, --image-refs ko's
REPOSITORY@DIGEST lines. --dry-run[=json] prints the plan and does nothing.
type=gha caches read ACTIONS_RUNTIME_TOKEN and ACTIONS_CACHE_URL/ACTIONS_RESULTS_URL.

Vulnerability gate: --vulns fail-on=called|imported|none scans each platform's
compiled EPP in binary mode (as epp-build vulns --binary does, against --vulns-db,
with --vex suppressions) after it is compiled and before anything is pushed. A
finding at or above the level that no --vex statement answers for prints the
findings and exits 10 with nothing pushed: no blob, manifest or tag. Otherwise the
scan goes into the report and, with --push, is attached to the index as a referrer
(cosign's vuln predicate, naming each platform's binary by digest) that inspect
shows and verify checks against the image's /epp. fail-on=none scans and attaches
without refusing. In container mode the binaries are read back from the solve
before its export; that needs one BuildKit node for every platform.`,
		Example: `  epp-build build --version v0.7.0 --image 127.0.0.1:5000/dynamo/epp:v0.7.0 \
      --platform linux/amd64,linux/arm64 --push --capi-src testdata/capi-double \
      --buildkit unix:///run/buildkit/buildkitd.sock --report build.json \
      --sbom generator=127.0.0.1:5000/tools/sbom-scanner --provenance mode=max
  epp-build build --version v0.7.0 --image registry.example/dynamo/epp:v0.7.0 --oci-tar epp.tar
  # a CI runner with only epp-build: C API and EPP compiled inside the solve,
  # each platform on its own node, BuildKit's cache shared through the registry
  epp-build build --version v0.7.0 --image registry.example/dynamo/epp:v0.7.0 --push \
      --compile container --builder-image registry.example/epp-build/builder:bookworm \
      --buildkit linux/amd64=tcp://amd-node:1234,linux/arm64=tcp://arm-node:1234 \
      --cache-from registry.example/dynamo/epp:buildcache \
      --cache-to type=registry,ref=registry.example/dynamo/epp:buildcache,mode=max
  # behind a TLS-intercepting proxy, with a private module proxy that needs a login
  GOPROXY=https://goproxy.corp.example GONOSUMDB=corp.example \
  epp-build build --version v0.7.0 --image registry.example/dynamo/epp:v0.7.0 --push \
      --compile container --builder-image registry.example/epp-build/builder:bookworm \
      --ca-bundle /etc/ssl/corp-ca.pem --secret id=netrc,src=$HOME/.netrc \
      --cargo-mirror sparse+https://crates.corp.example/index/
  # two release lines in one command, with CI files and a second tag each
  epp-build build --version v0.7.0 --version v1.4.2 --push \
      --image 'registry.example/dynamo/epp:{{.Version}}' --tag 'registry.example/dynamo/epp:{{.Version}}-{{.ShortCommit}}' \
      --compile container --builder-image registry.example/epp-build/builder:bookworm \
      --cache-from type=gha --cache-to type=gha,mode=max \
      --metadata-file metadata.json --image-refs image-refs.txt --report 'report-{{.Version}}.json'
  # refuse an image whose EPP calls a known vulnerability; attach the scan
  epp-build build --version v1.4.2 --image registry.example/dynamo/epp:v1.4.2 --push \
      --vulns fail-on=called --vulns-db file:///srv/vulndb --vex release.vex.json
  # what would happen, as JSON, without doing it
  epp-build build --version v0.7.0 --image registry.example/dynamo/epp:v0.7.0 --push --dry-run=json`,
		Args: dryRunArgs(&ci),
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Flags first: nothing is fetched or compiled for a run that
			// cannot succeed.
			var err error
			if opt.Platforms, err = platform.Parse(platforms); err != nil {
				return err
			}
			opt.Fetch.Go = changedGoSettings(cmd.Flags(), goSettings)
			if opt.Progress, err = f.progress.mode(); err != nil { // one display mode for the fetch and BuildKit
				return err
			}
			if err := resolveVulnsGate(cmd.Flags(), &opt.Vulns); err != nil {
				return err
			}
			opt.Stdout, opt.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runBuild(cmd, g, &f, &ci, opt, tree)
		},
	}
	f.registerVersions(cmd)
	ci.register(cmd, &opt)
	fl := cmd.Flags()
	fl.StringVar(&tree, "tree", "", "where the applied tree is kept (default: the cache folder + /trees/VERSION)")
	fl.StringSliceVar(&platforms, "platform", []string{"linux/amd64", "linux/arm64"}, "platforms to build (linux/amd64, linux/arm64)")
	fl.BoolVar(&opt.Push, "push", false, "push to the registry (by digest; tagged after verify and smoke)")
	fl.StringVar(&opt.OCITar, "oci-tar", "", "also write the image as an OCI tarball")
	fl.StringArrayVar(&opt.BuildKit, "buildkit", nil, "BuildKit address for every platform, or PLATFORM=ADDR per platform (repeatable, comma lists; default $BUILDKIT_HOST)")
	fl.StringArrayVar(&opt.CacheFrom, "cache-from", nil, "import build cache: type=registry,ref=REF | type=local,src=DIR | REF (repeatable)")
	fl.StringArrayVar(&opt.CacheTo, "cache-to", nil, "export build cache: type=registry,ref=REF[,mode=max][,ignore-error=true] | type=local,dest=DIR | type=inline (repeatable)")
	fl.StringVar(&opt.TLS.CACert, "tls-ca", "", "CA certificate for a tcp:// buildkitd")
	fl.StringVar(&opt.TLS.Cert, "tls-cert", "", "client certificate for a tcp:// buildkitd")
	fl.StringVar(&opt.TLS.Key, "tls-key", "", "client key for a tcp:// buildkitd")
	fl.StringVar(&opt.TLS.ServerName, "tls-server-name", "", "server name to verify for a tcp:// buildkitd")
	fl.BoolVar(&opt.Insecure, "insecure", false, "allow a plain-HTTP or untrusted registry")
	fl.StringVar(&opt.CAPISrc, "capi-src", "", "local checkout of the C API crate instead of the recipe's pin")
	fl.StringSliceVar(&opt.CAPIFeatures, "capi-features", nil, "cargo features of the C API crate to build with (comma-separated)")
	fl.StringVar(&opt.Compile, "compile", pipeline.CompileHost, "where the C API and the EPP are compiled: host (here) or container (inside the BuildKit solve)")
	f.progress.register(cmd, "progress of the fetch and the BuildKit solve")
	fl.StringVar(&opt.Report, "report", "", "write the JSON build report here (a template of the version, like --image, when building several)")
	fl.StringVar(&opt.BuilderImage, "builder-image", "", "container mode: the builder image (Go, Rust with both std, cbindgen, gcc for both arches)")
	fl.StringVar(&opt.BaseImage, "base-image", "", "runtime base image (default ubuntu:24.04)")
	fl.StringVar(&opt.Provenance, "provenance", "true", "BuildKit's SLSA provenance per platform: true (mode=max), false, mode=min or mode=max")
	fl.StringVar(&opt.SBOM, "sbom", "true", "BuildKit's SPDX SBOM per platform: true (BuildKit's default generator), false or generator=IMAGE")
	goSettings = registerFetchFlags(fl, &opt.Fetch)
	registerVulnsGate(fl, &opt.Vulns)
	fl.StringVar(&opt.SignKey, "sign-key", "", "sign the report attestation with this key, as cosign does (cosign's key, password in $COSIGN_PASSWORD, or a PEM private key; env://VAR for one in $VAR); needs --push")
	return cmd
}
