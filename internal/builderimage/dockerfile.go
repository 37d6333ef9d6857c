package builderimage

import (
	_ "embed"
	"slices"
	"strings"

	"github.com/epp-build/epp-build/internal/platform"
)

//go:embed Dockerfile
var dockerfile []byte

// Dockerfile is the builder image's definition, as epp-build builder solves it.
func Dockerfile() []byte { return slices.Clone(dockerfile) }

// toolPackages are the Debian packages every builder variant needs besides
// the per-target compilers and standard libraries: the toolchain zip is
// unpacked with unzip, Go modules may come from git, cargo and the go
// command fetch over TLS.
var toolPackages = []string{"ca-certificates", "git", "unzip", "rustc-web", "cargo-web", "cbindgen"}

// packagesFor are the packages a builder running on buildArch installs to
// compile for every supported target, and the foreign Debian architectures
// they come from.
func packagesFor(buildArch string) (packages, foreign []string, err error) {
	packages = slices.Clone(toolPackages)
	for _, target := range platform.Supported {
		p, err := platform.LookupFrom(target, buildArch)
		if err != nil {
			return nil, nil, err
		}
		packages = append(packages, p.CCPackages...)
		for _, std := range p.RustStdPackages {
			packages = append(packages, std)
			if _, arch, ok := strings.Cut(std, ":"); ok && arch != buildArch && !slices.Contains(foreign, arch) {
				foreign = append(foreign, arch)
			}
		}
	}
	return packages, foreign, nil
}

// buildArgs are the Dockerfile's build args for the plan, before the
// versions are known.
func buildArgs(p *Plan) (map[string]string, error) {
	args := map[string]string{"BASE_IMAGE": p.Base.String(), "GO_VERSION": strings.TrimPrefix(p.GoVersion, "go")}
	for _, pl := range p.Platforms {
		packages, foreign, err := packagesFor(pl.GOARCH)
		if err != nil {
			return nil, err
		}
		args["APT_PACKAGES_"+pl.GOARCH] = strings.Join(packages, " ")
		args["FOREIGN_ARCHES_"+pl.GOARCH] = strings.Join(foreign, " ")
	}
	return args, nil
}
