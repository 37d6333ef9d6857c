package report

// Fetch records the settings for what the build fetched inside the solve
// (Go modules, crates), with every credential masked: a value that carried
// one (a GOPROXY with user:password@, a registry token) shows it as
// "xxxxx", and the contents of --secret values are never recorded, only
// their ids.
type Fetch struct {
	// Go holds GOPROXY, GONOPROXY, GOPRIVATE, GONOSUMDB, GOSUMDB and
	// GOFLAGS as the build used them (from the environment or a flag).
	Go map[string]string `json:"go,omitempty"`
	// Cargo holds the CARGO_REGISTRIES_* and CARGO_REGISTRY_* settings.
	Cargo map[string]string `json:"cargo,omitempty"`
	// CargoMirror replaces crates.io (source replacement).
	CargoMirror string `json:"cargoMirror,omitempty"`
	// CABundleSHA256 is the SHA-256 of the --ca-bundle file.
	CABundleSHA256 string `json:"caBundleSha256,omitempty"`
	// Secrets are the ids of the --secret values mounted in the fetch steps.
	Secrets []string `json:"secrets,omitempty"`
	// BuildArgs are the --build-arg values (credentials masked).
	BuildArgs map[string]string `json:"buildArgs,omitempty"`
}
