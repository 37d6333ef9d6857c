package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/builderimage"
)

// newBuilderCommand builds the container compile mode's builder image.
func newBuilderCommand() *cobra.Command {
	var opt builderimage.Options
	var report string
	var prog progressFlags
	var printDockerfile bool
	cmd := &cobra.Command{
		Use:   "builder --image REF --push [--base IMAGE] [--platform LIST]",
		Short: "Build the builder image of --compile container (Go, Rust, cbindgen, gcc) for every platform",
		Long: `builder builds the image that build --compile container compiles in, FROM a Debian
base (--base, default ` + builderimage.DefaultBase + `), for linux/amd64 and
linux/arm64 in one BuildKit solve. Each variant holds gcc and the Rust standard
library of both architectures, cargo, cbindgen and Go, so a build compiles for
every target on its own node without emulation.

The Go toolchain is the go command's own toolchain module (golang.org/toolchain),
fetched through your GOPROXY and verified against the checksum database by the go
command, which must be on PATH. The image's labels name the versions read from
inside it (dev.epp-build.builder.go, .rustc, .cargo, .cbindgen, .gcc); stdout
names the image and its versions, and --report FILE writes them as JSON with the
pushed digest. The image is pushed by digest and
tagged last, so a tag never names a half-built image.

--print-dockerfile prints the definition it solves and builds nothing.`,
		Example: `  epp-build builder --image registry.example/epp-build/builder:bookworm --push
  epp-build builder --image registry.example/epp-build/builder:trixie --push --base docker.io/library/debian:trixie
  epp-build builder --oci-tar builder.tar --platform linux/amd64 --report builder.json
  epp-build builder --print-dockerfile`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if printDockerfile {
				_, err := cmd.OutOrStdout().Write(builderimage.Dockerfile())
				return err
			}
			mode, err := prog.mode()
			if err != nil {
				return err
			}
			opt.Progress = mode
			plan, err := builderimage.Resolve(opt)
			if err != nil {
				return err
			}
			res, err := builderimage.Build(cmd.Context(), plan, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if report != "" {
				if err := builderimage.WriteReport(report, res); err != nil {
					return err
				}
			}
			return writeBuilderText(cmd.OutOrStdout(), res)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opt.Base, "base", "", "the Debian image to build FROM (default "+builderimage.DefaultBase+")")
	fl.StringSliceVar(&opt.Platforms, "platform", nil, "build platforms the builder is made for (default linux/amd64,linux/arm64)")
	fl.StringVar(&opt.Image, "image", "", "repository to push to, with the tag to set: registry.example/epp-build/builder:bookworm")
	fl.BoolVar(&opt.Push, "push", false, "push to --image (by digest, then the tag)")
	fl.StringVar(&opt.OCITar, "oci-tar", "", "also write the image as an OCI tarball")
	fl.StringVar(&opt.GoVersion, "go", "", "the Go release to install, such as 1.26.8 (default: the one this epp-build was built with)")
	fl.StringVar(&opt.BuildKit, "buildkit", "", "BuildKit address (default $BUILDKIT_HOST)")
	fl.StringVar(&opt.TLS.CACert, "tls-ca", "", "CA certificate for a tcp:// buildkitd")
	fl.StringVar(&opt.TLS.Cert, "tls-cert", "", "client certificate for a tcp:// buildkitd")
	fl.StringVar(&opt.TLS.Key, "tls-key", "", "client key for a tcp:// buildkitd")
	fl.StringVar(&opt.TLS.ServerName, "tls-server-name", "", "server name to verify for a tcp:// buildkitd")
	fl.BoolVar(&opt.Insecure, "insecure", false, "allow a plain-HTTP or untrusted registry")
	fl.StringArrayVar(&opt.CacheFrom, "cache-from", nil, "import build cache: type=registry,ref=REF | type=local,src=DIR | REF (repeatable)")
	fl.StringArrayVar(&opt.CacheTo, "cache-to", nil, "export build cache: type=registry,ref=REF[,mode=max] | type=local,dest=DIR | type=inline (repeatable)")
	fl.BoolVar(&printDockerfile, "print-dockerfile", false, "print the builder's Dockerfile and build nothing")
	prog.register(cmd, "build progress")
	fl.StringVar(&report, "report", "", "write the result as JSON here: image, digest, platforms, base, toolchains")
	cmd.MarkFlagsMutuallyExclusive("print-dockerfile", "push")
	cmd.MarkFlagsMutuallyExclusive("print-dockerfile", "oci-tar")
	return cmd
}

func writeBuilderText(w io.Writer, r *builderimage.Result) error {
	t := r.Toolchains
	ref := r.Image
	if r.Tag != "" {
		ref = r.Tag + " (" + r.Digest + ")"
	}
	_, err := fmt.Fprintf(w, "builder %s\n  platforms %v\n  base      %s\n  go %s, rustc %s, cargo %s, cbindgen %s, gcc %s\n",
		ref, r.Platforms, r.Base, t.Go, t.Rustc, t.Cargo, t.Cbindgen, t.GCC)
	if err == nil && r.OCITar != "" {
		_, err = fmt.Fprintf(w, "  oci-tar   %s\n", r.OCITar)
	}
	return err
}
