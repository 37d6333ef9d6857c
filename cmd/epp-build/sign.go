package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/image"
)

func newSignCommand() *cobra.Command {
	var ro image.RegistryOptions
	var key string
	cmd := &cobra.Command{
		Use:   "sign REF --key FILE",
		Short: "Sign the epp-build report attestation of a pushed image, in the format cosign verifies",
		Long: `sign reads the image index at REF and its epp-build report attestation, checks
them as verify does, and signs the report's in-toto statement with the key: a DSSE
envelope, stored where ` + "`cosign attest`" + ` stores one (the image tagged
sha256-<index hex>.att in the same repository; signatures already there are kept).
` + "`epp-build verify --key`" + ` and ` + "`cosign verify-attestation --key`" + ` check it. ` + "`build --sign-key`" + `
does the same as part of a build, before the tag moves.

The key is cosign's (cosign generate-key-pair: an encrypted key whose password
is read from $COSIGN_PASSWORD) or an unencrypted PEM private key (ECDSA, RSA or
Ed25519), in a file or, as cosign takes it, in an environment variable:
--key env://VAR (an unset or empty VAR exits 2). The key and the password are
never printed or stored.`,
		Example: `  COSIGN_PASSWORD=... epp-build sign registry.example/dynamo/epp:v0.7.0 --key cosign.key
  COSIGN_KEY="$(cat cosign.key)" epp-build sign registry.example/dynamo/epp:v0.7.0 --key env://COSIGN_KEY
  epp-build verify registry.example/dynamo/epp:v0.7.0 --key cosign.pub
  cosign verify-attestation --key cosign.pub --insecure-ignore-tlog \
    --type ` + attest.PredicateType + ` registry.example/dynamo/epp:v0.7.0`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if key == "" {
				return usageError{fmt.Errorf("sign: --key FILE or --key env://VAR is required")}
			}
			signed, err := attest.Sign(cmd.Context(), args[0], key, ro)
			if err != nil {
				return err
			}
			attest.WriteSigned(cmd.OutOrStdout(), signed)
			return nil
		},
	}
	cmd.Flags().StringVar(&key, "key", "", "private key file, or env://VAR for one in $VAR: cosign's (password in $COSIGN_PASSWORD) or a PEM private key")
	cmd.Flags().BoolVar(&ro.Insecure, "insecure", false, "allow a plain-HTTP or untrusted registry")
	return cmd
}
