package main

import (
	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/outfmt"
)

func newInspectCommand() *cobra.Command {
	var output outfmt.Format
	var ro image.RegistryOptions
	cmd := &cobra.Command{
		Use:   "inspect REF",
		Short: "Print what went into a pushed image: upstream, patch series, C API, toolchains, attestations",
		Long: `inspect reads an image index, BuildKit's attestation manifests in it and the
epp-build report attestation (an in-toto statement with predicate type
` + attest.PredicateType + `, attached to the index as an OCI referrer)
from the registry alone: no recipe, no cache, no build. It prints the index and
platform digests, whether each platform has SLSA provenance and an SBOM, the
upstream repository and commit, every patch's name and SHA-256, the C API source,
commit and patches, and the toolchains, and each vulnerability scan build --vulns
attached (findings by level per platform, the database, when it was scanned).
-o json is the machine-readable form.
Every attestation manifest and blob is fetched and checked against its digest;
what could not be fetched is shown in place of "yes", for example
"sbom: missing (blob sha256:... 404)".

Registry credentials come from the Docker config; they are never printed.`,
		Example: `  epp-build inspect registry.example/dynamo/epp:v0.7.0
  epp-build inspect 127.0.0.1:5000/dynamo/epp@sha256:... --insecure -o json
  epp-build inspect registry.example/dynamo/epp:v0.7.0 -o markdown   # for release notes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			img, err := attest.Read(cmd.Context(), args[0], ro)
			if err != nil {
				return err
			}
			img.WriteWarnings(cmd.ErrOrStderr())
			return render(cmd, output, img, img.WriteMarkdown, img.WriteText)
		},
	}
	outputFlag(cmd, &output)
	cmd.Flags().BoolVar(&ro.Insecure, "insecure", false, "allow a plain-HTTP or untrusted registry")
	return cmd
}

func newVerifyCommand() *cobra.Command {
	var ro image.RegistryOptions
	var key string
	cmd := &cobra.Command{
		Use:   "verify REF",
		Short: "Check that a pushed image has its provenance, SBOM and epp-build report attestations",
		Long: `verify reads an image index from the registry and checks that every platform image
has its attestation manifest with SLSA provenance and an SPDX SBOM (BuildKit's own
attestations), and that the epp-build report attestation is attached to the index
with the index as its subject and the index's platform digests. It vouches only
for what it has fetched: every attestation manifest and blob, every report
referrer, and every platform image's manifest, config and layers are downloaded
and checked against their digests, and every report referrer of the index must
agree. Each vulnerability scan attached by build --vulns must record this index
and its platform images, and each image's /epp must be the binary it scanned (by
digest). A missing, unfetchable or mismatched attestation exits 5, naming it and
its platform. With --key (a PEM public key, such as cosign.pub, or env://VAR for one
in $VAR, as cosign takes it) the report must
also be signed with that key (epp-build sign, build --sign-key); an unsigned
report, or one signed with another key, exits 5.`,
		Example: `  epp-build verify registry.example/dynamo/epp:v0.7.0
  epp-build verify 127.0.0.1:5000/dynamo/epp@sha256:... --insecure
  epp-build verify registry.example/dynamo/epp:v0.7.0 --key cosign.pub`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			img, err := verifyImage(cmd, args[0], ro, key)
			if err != nil {
				return err
			}
			img.WriteWarnings(cmd.ErrOrStderr())
			attest.WriteVerified(cmd.OutOrStdout(), args[0], img)
			return nil
		},
	}
	cmd.Flags().StringVar(&key, "key", "", "also require the report to be signed with this PEM public key (cosign.pub), or the one in $VAR with env://VAR")
	cmd.Flags().BoolVar(&ro.Insecure, "insecure", false, "allow a plain-HTTP or untrusted registry")
	return cmd
}

// verifyImage is verify, and with a key the report's signature too.
func verifyImage(cmd *cobra.Command, ref string, ro image.RegistryOptions, key string) (*attest.Image, error) {
	// A reference that cannot parse is refused before the key is read.
	if _, err := attest.ParseReference(ref, ro); err != nil {
		return nil, err
	}
	if key == "" {
		return attest.Verify(cmd.Context(), ref, ro)
	}
	v, err := attest.LoadVerifier(key)
	if err != nil {
		return nil, err
	}
	return attest.VerifySigned(cmd.Context(), ref, ro, v)
}
