// Command release makes a release of epp-build (make release): static
// binaries for Linux and macOS on amd64 and arm64, an SPDX SBOM per
// binary, SHA256SUMS and, with --key, its cosign-compatible signature.
//
//	go run ./tools/release --version v1.2.3 --dist dist [--key cosign.key]
//
// The revision and its date come from the checkout (git), or
// SOURCE_DATE_EPOCH for the date; with --verify DIR it checks a release
// folder instead (--pub for the signature). With --image REF it also
// builds the image of the tool from the release's linux binaries (--push
// to push it, --buildkit ADDR or $BUILDKIT_HOST for BuildKit); with
// --image-from DIR it packages a release folder made before.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/toolimage"
	"github.com/epp-build/epp-build/internal/toolrelease"
)

func main() {
	var (
		opt       toolrelease.Options
		verify    string
		pub       string
		img       toolimage.Options
		imageFrom string
	)
	flag.StringVar(&opt.Version, "version", "", "the release's semantic version, such as v1.2.3")
	flag.StringVar(&opt.Dist, "dist", "dist", "the folder to write (must not exist)")
	flag.StringVar(&opt.Toolchain, "toolchain", "", "build with this Go release (goX.Y.Z, fetched through GOTOOLCHAIN); default: the go command's own")
	flag.StringVar(&opt.Key, "key", "", "sign SHA256SUMS with this cosign or PEM private key, or env://VAR (password in $COSIGN_PASSWORD)")
	flag.StringVar(&verify, "verify", "", "check the release folder DIR instead of making one")
	flag.StringVar(&pub, "pub", "", "with --verify: the public key SHA256SUMS.sig must verify with")
	flag.StringVar(&img.Image, "image", "", "also build the tool image and name it REPOSITORY[:TAG]")
	flag.StringVar(&imageFrom, "image-from", "", "with --image: package the release folder DIR instead of making a release")
	flag.BoolVar(&img.Push, "push", false, "with --image: push it (by digest, then the tag)")
	flag.StringVar(&img.OCITar, "oci-tar", "", "with --image: also write it as an OCI tarball")
	flag.StringVar(&img.Base, "base", "", "with --image: the base image (default "+toolimage.DefaultBase+")")
	flag.StringVar(&img.BuildKit, "buildkit", "", "with --image: BuildKit address (default $BUILDKIT_HOST)")
	flag.BoolVar(&img.Insecure, "insecure", false, "with --image: allow a plain-HTTP registry")
	flag.Parse()
	if flag.NArg() > 0 {
		fail(2, fmt.Errorf("unexpected argument %q", flag.Arg(0)))
	}
	if verify != "" {
		if err := toolrelease.Verify(verify, pub); err != nil {
			fail(1, err)
		}
		fmt.Println("ok:", verify)
		return
	}
	if imageFrom != "" && img.Image == "" {
		fail(2, fmt.Errorf("--image-from needs --image REPOSITORY[:TAG]"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opt.Source, opt.Log = ".", os.Stderr
	var err error
	if opt.Revision, err = git("rev-parse", "HEAD"); err != nil {
		fail(1, err)
	}
	if imageFrom != "" {
		res, err := toolImage(ctx, img, imageFrom, opt)
		if err != nil {
			fail(1, err)
		}
		printJSON(res)
		return
	}
	if opt.SourceDate, err = sourceDate(); err != nil {
		fail(2, err)
	}
	res, err := toolrelease.Make(ctx, opt)
	if err != nil {
		fail(1, err)
	}
	out := struct {
		*toolrelease.Result
		Image *toolimage.Result `json:"image,omitempty"`
	}{Result: res}
	if img.Image != "" {
		if out.Image, err = toolImage(ctx, img, opt.Dist, opt); err != nil {
			fail(1, err)
		}
	}
	printJSON(out)
}

// toolImage packages the release folder dist, after checking its files
// against SHA256SUMS: the image holds the bytes the release lists.
func toolImage(ctx context.Context, img toolimage.Options, dist string, opt toolrelease.Options) (*toolimage.Result, error) {
	if err := toolrelease.Verify(dist, ""); err != nil {
		return nil, fmt.Errorf("release folder %s: %w", dist, err)
	}
	img.Dist, img.Version, img.Revision = dist, opt.Version, opt.Revision
	img.BinaryPrefix = strings.TrimSuffix(toolrelease.BinaryName(opt.Version, "linux/amd64"), "linux-amd64")
	img.Platforms = toolimage.Platforms
	img.Progress = "plain"
	return toolimage.Build(ctx, img, os.Stderr)
}

func printJSON(v any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// sourceDate is SOURCE_DATE_EPOCH, else the commit's time.
func sourceDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		var err error
		if s, err = git("log", "-1", "--format=%ct", "HEAD"); err != nil {
			return time.Time{}, err
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: want seconds since 1970", s)
	}
	return time.Unix(n, 0).UTC(), nil
}

func git(args ...string) (string, error) {
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "release:", err)
	os.Exit(code)
}
