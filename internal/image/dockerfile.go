package image

import (
	"fmt"
	"path"
	"strings"
)

// No "# syntax=" line anywhere: that would make BuildKit pull a frontend
// image; the daemon's built-in Dockerfile frontend is used instead.

// DefaultBaseImage is the runtime base unless the caller names another.
const DefaultBaseImage = "ubuntu:24.04"

// HostDockerfile assembles the image from binaries compiled on this machine,
// one per arch under bin/<arch>/. TARGETARCH picks the right one inside the
// single multi-platform solve.
func HostDockerfile(binary string) string {
	return fmt.Sprintf(`ARG BASE_IMAGE=%[1]s
FROM ${BASE_IMAGE}
ARG TARGETARCH
COPY bin/${TARGETARCH}/%[2]s /%[2]s
COPY %[3]s %[4]s
ENTRYPOINT ["/%[2]s"]
`, DefaultBaseImage, binary, CAPISPDXFile, CAPISPDXPath)
}

// The SPDX document naming the upstream module and the Rust C API, in the
// context (CAPISPDXFile) and in the image (CAPISPDXPath), for SBOM
// generators that read SBOM files they find in an image: a static Rust
// library inside a Go binary is otherwise invisible to them, and a main
// module built from a tree with -trimpath has no version in its build info.
const (
	CAPISPDXFile = "capi.spdx.json"
	CAPISPDXPath = "/usr/share/epp-build/capi.spdx.json"
)

// Names the container Dockerfile gives to its parts.
const (
	// CAPIContext is the named build context holding the C API workspace.
	CAPIContext = "capi-workspace"
	// CAPIScript is the C API build script's file in the main context.
	CAPIScript = "capi-build.sh"
	// CAPIOutStage holds one platform's C API build output at its root.
	CAPIOutStage = "capi-out"
	// CAPICbindgenStage holds the header the cbindgen CLI wrote.
	CAPICbindgenStage = "capi-cbindgen-out"
	// TagsArg is the build arg with the extra Go build tags.
	TagsArg = "EPP_TAGS"
	// EPPStage compiles the EPP, for each target platform, into
	// EPPOutDir; the image copies it from there.
	EPPStage  = "builder"
	EPPOutDir = "/out"
)

// ContainerDockerfile builds everything inside the solve, in a builder
// image that runs on the build platform (no emulation): the C API with
// cargo for TARGETARCH (CAPIScript, from the CAPIContext workspace; cargo's
// home and target folder are cache mounts), then the EPP with cgo against
// that library, staged at <bindingDir>/lib/<arch>/ of the context's src/.
// The builder image needs Go, rustc and cargo with the std of both
// targets, cbindgen, and the C compilers x86_64-linux-gnu-gcc and
// aarch64-linux-gnu-gcc. The optional features' Go build tags come in the
// TagsArg build arg; the C API stages' settings in capi.SolveSpec's.
func ContainerDockerfile(binary, pkg, bindingDir string) string {
	return ContainerDockerfileFetching(binary, pkg, bindingDir, nil)
}

// ContainerDockerfileFetching is ContainerDockerfile whose fetch steps
// (cargo's, cbindgen's and go build's) also mount the --secret values
// secretIDs, besides the fetch settings every build passes (fetchsteps.go).
// GOFLAGS is a build arg of the EPP's build: it changes what is built.
func ContainerDockerfileFetching(binary, pkg, bindingDir string, secretIDs []string) string {
	return ContainerDockerfileGo(binary, pkg, bindingDir, secretIDs, "")
}

// ContainerDockerfileGo is ContainerDockerfileFetching whose EPP is
// compiled by the Go release goVersion (goX.Y.Z) from the named context
// GoToolchainContext, in place of the builder's own Go; "" keeps the
// builder's.
func ContainerDockerfileGo(binary, pkg, bindingDir string, secretIDs []string, goVersion string) string {
	r := strings.NewReplacer("{base}", DefaultBaseImage, "{bin}", binary, "{pkg}", pkg, "{binding}", path.Clean(bindingDir),
		"{ctx}", CAPIContext, "{script}", CAPIScript, "{out}", CAPIOutStage, "{cbindgen}", CAPICbindgenStage, "{tags}", TagsArg, "{eppstage}", EPPStage, "{eppout}", EPPOutDir,
		"{fetch}", fetchMounts(secretIDs), "{source}", sourceFetch,
		"{spdx}", CAPISPDXFile, "{spdxpath}", CAPISPDXPath, "{go}", goToolchainSteps(goVersion))
	return r.Replace(`ARG BUILDER_IMAGE=golang:1.26-bookworm
ARG BASE_IMAGE={base}

FROM --platform=$BUILDPLATFORM ${BUILDER_IMAGE} AS capi-src
COPY --from={ctx} / /capi/src/

FROM capi-src AS capi-build
ARG TARGETARCH
ARG CAPI_CRATE
ARG CAPI_LIBRARY
ARG CAPI_CRATE_DIR
ARG CAPI_FEATURES
ARG CAPI_TARGET_SUFFIX
ARG CAPI_HEADER_NAME
RUN --mount=type=bind,source={script},target=/capi/build.sh \
    --mount=type=cache,id=epp-build-cargo-home,target=/cache/cargo \
    --mount=type=cache,id=epp-build-capi-target-${TARGETARCH},target=/cache/target \
    {fetch} \
    {source}sh /capi/build.sh lib

FROM scratch AS {out}
COPY --from=capi-build /capi/out/ /

FROM capi-src AS capi-cbindgen
ARG CAPI_CRATE
ARG CAPI_CRATE_DIR
ARG CAPI_HEADER_NAME
RUN --mount=type=bind,source={script},target=/capi/build.sh \
    {fetch} \
    {source}sh /capi/build.sh cbindgen

FROM scratch AS {cbindgen}
COPY --from=capi-cbindgen /capi/out/ /

FROM --platform=$BUILDPLATFORM ${BUILDER_IMAGE} AS {eppstage}
ARG TARGETARCH
ARG SOURCE_DATE_EPOCH
ARG {tags}
ARG GOFLAGS
{go}WORKDIR /src
COPY src/ /src/
COPY --from={out} /lib/ /src/{binding}/lib/${TARGETARCH}/
RUN --mount=type=cache,target=/cache/gomod \
    --mount=type=cache,target=/cache/gobuild \
    {fetch} \
    {source}case "$TARGETARCH" in \
      amd64) cc=x86_64-linux-gnu-gcc ;; \
      arm64) cc=aarch64-linux-gnu-gcc ;; \
      *) echo "unsupported TARGETARCH $TARGETARCH" >&2; exit 1 ;; \
    esac && \
    GOMODCACHE=/cache/gomod GOCACHE=/cache/gobuild GOWORK=off \
    CGO_ENABLED=1 GOOS=linux GOARCH=$TARGETARCH CC=$cc \
    go build -trimpath -buildvcs=false -tags "netgo,osusergo${{tags}:+,${tags}}" \
      -ldflags '-s -w -linkmode external -extldflags "-static"' \
      -o {eppout}/{bin} {pkg}

FROM ${BASE_IMAGE}
COPY --from={eppstage} {eppout}/{bin} /{bin}
COPY {spdx} {spdxpath}
ENTRYPOINT ["/{bin}"]
`)
}

// SmokeDockerfile runs the image's entrypoint with --help on each platform,
// starting FROM the pushed image by digest.
func SmokeDockerfile(ref string, entrypoint []string) string {
	args := append(append([]string(nil), entrypoint...), "--help")
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	return fmt.Sprintf("FROM %s\nRUN [%s]\n", ref, strings.Join(quoted, ", "))
}
