package image

import (
	"fmt"
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
ENTRYPOINT ["/%[2]s"]
`, DefaultBaseImage, binary)
}

// ContainerDockerfile cross-compiles inside a builder image that runs on
// the build platform (no emulation), linking the static C API library the
// context holds at <bindingDir>/lib/<arch>/. The builder image needs Go and
// the cross C compilers (x86_64-linux-gnu-gcc, aarch64-linux-gnu-gcc).
// tags are extra Go build tags (the optional C API features the library has).
func ContainerDockerfile(binary, pkg string, tags ...string) string {
	return fmt.Sprintf(`ARG BUILDER_IMAGE=golang:1.26-bookworm
ARG BASE_IMAGE=%[1]s
FROM --platform=$BUILDPLATFORM ${BUILDER_IMAGE} AS builder
ARG TARGETARCH
ARG SOURCE_DATE_EPOCH
WORKDIR /src
COPY src/ /src/
RUN --mount=type=cache,target=/cache/gomod \
    --mount=type=cache,target=/cache/gobuild \
    case "$TARGETARCH" in \
      amd64) cc=x86_64-linux-gnu-gcc ;; \
      arm64) cc=aarch64-linux-gnu-gcc ;; \
      *) echo "unsupported TARGETARCH $TARGETARCH" >&2; exit 1 ;; \
    esac && \
    GOMODCACHE=/cache/gomod GOCACHE=/cache/gobuild \
    CGO_ENABLED=1 GOOS=linux GOARCH=$TARGETARCH CC=$cc \
    go build -trimpath -buildvcs=false -tags %[4]s \
      -ldflags '-s -w -linkmode external -extldflags "-static"' \
      -o /out/%[2]s %[3]s

FROM ${BASE_IMAGE}
COPY --from=builder /out/%[2]s /%[2]s
ENTRYPOINT ["/%[2]s"]
`, DefaultBaseImage, binary, pkg, strings.Join(append([]string{"netgo", "osusergo"}, tags...), ","))
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
