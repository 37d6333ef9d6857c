package image

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/epp-build/epp-build/internal/gotoolchain"
)

// GoToolchainContext is the named context of a container build whose
// recipe names a Go toolchain: the module cache's golang.org folder,
// showing only the unpacked toolchain modules (GoToolchainFolder).
const GoToolchainContext = "go-toolchain"

// goToolchainRoot is where the compile step finds the recipe's Go.
const goToolchainRoot = "/opt/epp-build-go"

// GoToolchainFolder is the folder the module cache unpacks goVersion's
// toolchain for linux/goarch into, under its golang.org folder.
func GoToolchainFolder(goVersion, goarch string) string {
	return strings.TrimPrefix(gotoolchain.Module(goVersion, goarch), "golang.org/")
}

// goToolchainSteps put the toolchain of the build platform first on PATH
// for the compile step. The builder runs on the build platform, so its Go
// is linux/$BUILDARCH's and cross-compiles as the builder's own would. A
// module zip keeps no file modes: the go command sets the executable bits
// of bin/ and pkg/tool/ when it switches to a toolchain, and so does this.
func goToolchainSteps(goVersion string) string {
	if goVersion == "" {
		return ""
	}
	folder := GoToolchainFolder(goVersion, "${BUILDARCH}")
	r := strings.NewReplacer("{ctx}", GoToolchainContext, "{folder}", folder, "{root}", goToolchainRoot, "{go}", goVersion)
	return r.Replace(`ARG BUILDARCH
COPY --from={ctx} /{folder}/ {root}/
RUN chmod -R u+w,a+rX {root} && chmod a+x {root}/bin/* {root}/pkg/tool/*/* && \
    test "$({root}/bin/go env GOVERSION)" = {go}
ENV GOROOT={root} PATH={root}/bin:$PATH GOTOOLCHAIN=local
`)
}

// GoToolchainNamedContext fetches goVersion's toolchain for linux on each
// of goarches through the go command (internal/gotoolchain) and returns
// the named context that shows exactly those unpacked toolchains from the
// module cache, as GoToolchainFolder names them.
func GoToolchainNamedContext(ctx context.Context, goVersion string, goarches []string, log io.Writer) (NamedContext, error) {
	nc := NamedContext{Exclude: []string{"*"}}
	for _, arch := range goarches {
		fmt.Fprintf(log, "go toolchain: go mod download %s\n", gotoolchain.Module(goVersion, arch))
		got, err := gotoolchain.Download(ctx, goVersion, arch)
		if err != nil {
			return NamedContext{}, fmt.Errorf("the recipe's toolchain %s: %w", goVersion, err)
		}
		if parent := filepath.Dir(got.Dir); nc.Dir != "" && nc.Dir != parent {
			return NamedContext{}, fmt.Errorf("go mod download put the toolchains in two folders: %s and %s", nc.Dir, parent)
		}
		nc.Dir = filepath.Dir(got.Dir)
		nc.Exclude = append(nc.Exclude, "!"+filepath.Base(got.Dir))
	}
	return nc, nil
}
