package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/epp-build/epp-build/internal/pipeline"
)

// registerFetchFlags adds the flags for what the build fetches inside the
// solve, and --secret and --build-arg; it returns the flag name of each
// Go setting.
func registerFetchFlags(fl *pflag.FlagSet, f *pipeline.FetchOptions) map[string]string {
	fl.StringArrayVar(&f.Secrets, "secret", nil, "a secret for the fetch steps, as buildx: id=ID,src=FILE or id=ID,env=VAR (repeatable; mounted at /run/secrets/ID)")
	fl.StringArrayVar(&f.BuildArgs, "build-arg", nil, "a build arg, KEY=VALUE (repeatable; HTTPS_PROXY, NO_PROXY reach every step)")
	fl.StringVar(&f.CABundle, "ca-bundle", "", "container mode: PEM CA certificates the Go module and crate fetches trust besides the builder's (a TLS-intercepting proxy's)")
	fl.StringVar(&f.CargoMirror, "cargo-mirror", "", "container mode: a registry replacing crates.io (source replacement), e.g. sparse+https://HOST/index/")
	fl.StringArrayVar(&f.CargoRegistries, "cargo-registry", nil, "a cargo registry, NAME=INDEX-URL, as CARGO_REGISTRIES_NAME_INDEX (repeatable; overrides the environment)")
	names := map[string]string{}
	for _, k := range pipeline.GoSettings {
		name := strings.ToLower(k)
		names[name] = k
		fl.String(name, "", "the Go module fetch's "+k+" (default: $"+k+")")
	}
	return names
}

// changedGoSettings are the Go settings given as flags (even empty: an
// empty flag unsets the environment's).
func changedGoSettings(fl *pflag.FlagSet, names map[string]string) map[string]string {
	out := map[string]string{}
	for name, key := range names {
		if fl.Changed(name) {
			v, _ := fl.GetString(name)
			out[key] = v
		}
	}
	return out
}
