package pipeline

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/csv"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/epp-build/epp-build/internal/goenv"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/report"
)

// What the container mode fetches inside the solve (the EPP's Go modules,
// the C API's crates) is fetched with the settings the go command and
// cargo would take here: GOPROXY and friends from the environment or the
// go env file (`go env -w`), CARGO_REGISTRIES_* from the environment, each
// overridden by its flag; a CA bundle to trust; a
// crates.io mirror; and --secret values. They reach only the steps that
// fetch, as BuildKit secrets (image/fetchsteps.go); the report records
// them with every credential masked.

// FetchOptions are the settings for what the build fetches, the --secret
// and the --build-arg values.
type FetchOptions struct {
	// CABundle is a PEM file of CA certificates the fetches trust besides
	// the builder's own (a TLS-intercepting proxy's, a private mirror's).
	CABundle string
	// Go are the flags' values of GoSettings' keys; a key that is set
	// overrides the environment's value, even when empty.
	Go map[string]string
	// CargoMirror replaces crates.io (cargo's source replacement): a
	// registry index URL, sparse+https://... for a sparse index.
	CargoMirror string
	// CargoRegistries are NAME=INDEX pairs, as CARGO_REGISTRIES_NAME_INDEX
	// (overriding the environment's).
	CargoRegistries []string
	// Secrets are --secret values in buildx's syntax:
	// id=ID[,src=FILE|,env=VAR][,type=file|env].
	Secrets []string
	// BuildArgs are --build-arg KEY=VALUE values (HTTPS_PROXY and the other
	// proxy variables BuildKit passes to every RUN step).
	BuildArgs []string
}

// GoSettings are the go command's settings the Go module fetch takes from
// the environment, the go env file or a flag. GOFLAGS changes what is built and is a build
// arg; the others say only where modules come from (go.sum pins them).
var GoSettings = []string{"GOPROXY", "GONOPROXY", "GOPRIVATE", "GONOSUMDB", "GOSUMDB", "GOFLAGS"}

// cargoEnvPrefixes are cargo's registry settings taken from the
// environment (index URLs, tokens, the default registry).
var cargoEnvPrefixes = []string{"CARGO_REGISTRIES_", "CARGO_REGISTRY_"}

// reservedBuildArgs are the container Dockerfile's own build args: each
// has a flag of its own.
var reservedBuildArgs = map[string]string{
	"BUILDER_IMAGE": "--builder-image", "BASE_IMAGE": "--base-image", "SOURCE_DATE_EPOCH": "the upstream commit's time",
	image.TagsArg: "the C API's features", "GOFLAGS": "--goflags",
}

var argName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// maxSecretSize is BuildKit's limit for one secret.
const maxSecretSize = 500 * 1024

var (
	secretLimit   = inputfile.Limit{Bytes: maxSecretSize, What: "a build secret", Raise: "BuildKit takes no larger secret"}
	caBundleLimit = inputfile.Limit{Bytes: 16 << 20, What: "a CA bundle", Raise: "name a PEM bundle of the CAs the build needs"}
)

// fetchPlan is FetchOptions resolved against the environment.
type fetchPlan struct {
	goEnv     map[string]string // GoSettings without GOFLAGS
	goFlags   string
	cargoEnv  map[string]string
	mirror    string
	ca        []byte
	secrets   map[string][]byte // --secret values by id
	buildArgs map[string]string
}

// resolveFetch reads the environment, the CA bundle and the secrets; every
// problem is returned, none stops the others being found. A CA bundle or
// secret file that is not a bounded regular file is refused input, the
// first such *inputfile.Error, rather than a problem with the flags.
func (o *Options) resolveFetch() (*fetchPlan, []string, error) {
	f := o.Fetch
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	lookup := func(key string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
				return v, true
			}
		}
		return "", false
	}
	fp := &fetchPlan{goEnv: map[string]string{}, cargoEnv: map[string]string{}, secrets: map[string][]byte{}, buildArgs: map[string]string{}}
	var problems []string

	goEnv := goenv.Load(env)
	for _, k := range GoSettings {
		v := goEnv.Get(k)
		if fv, ok := f.Go[k]; ok {
			v = fv
		}
		if v == "" {
			continue
		}
		if k == "GOFLAGS" {
			fp.goFlags = v
		} else {
			fp.goEnv[k] = v
			rememberURLCredentials(v)
		}
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		for _, p := range cargoEnvPrefixes {
			if strings.HasPrefix(k, p) && v != "" {
				fp.cargoEnv[k] = v
			}
		}
	}
	for _, r := range f.CargoRegistries {
		name, index, ok := strings.Cut(r, "=")
		if !ok || name == "" || index == "" {
			problems = append(problems, fmt.Sprintf("--cargo-registry %q: want NAME=INDEX-URL", redact.Text(r)))
			continue
		}
		fp.cargoEnv["CARGO_REGISTRIES_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_"))+"_INDEX"] = index
	}
	for k, v := range fp.cargoEnv {
		if secretSetting(k) {
			redact.Remember("", v)
		} else {
			rememberURLCredentials(v)
		}
	}
	if f.CargoMirror != "" {
		u, err := url.Parse(strings.TrimPrefix(f.CargoMirror, "sparse+"))
		if err != nil || u.Host == "" || strings.ContainsAny(f.CargoMirror, "\"\\\n") {
			problems = append(problems, fmt.Sprintf("--cargo-mirror %q: want a registry index URL (sparse+https://HOST/PATH/ for a sparse index)", redact.URL(f.CargoMirror)))
		} else {
			fp.mirror = f.CargoMirror
			rememberURLCredentials(f.CargoMirror)
		}
	}
	var refused error
	isRefused := func(err error) bool {
		if e := (*inputfile.Error)(nil); errors.As(err, &e) {
			if refused == nil {
				refused = err
			}
			return true
		}
		return false
	}
	if f.CABundle != "" {
		data, err := inputfile.ReadFile(f.CABundle, "", caBundleLimit)
		switch {
		case isRefused(err):
		case err != nil:
			problems = append(problems, fmt.Sprintf("--ca-bundle: %v", err))
		case !hasCertificate(data):
			problems = append(problems, fmt.Sprintf("--ca-bundle %s: no PEM certificate in it", f.CABundle))
		default:
			fp.ca = data
		}
	}
	for _, s := range f.Secrets {
		id, data, err := readSecret(s, lookup)
		if isRefused(err) {
			continue
		}
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		fp.secrets[id] = data
		redact.Remember("", string(data))
		redact.Remember("", strings.TrimSpace(string(data)))
	}
	for _, a := range f.BuildArgs {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			// As buildx: a bare KEY takes its value from the environment.
			v, ok = lookup(k)
		}
		switch {
		case !argName.MatchString(k):
			problems = append(problems, fmt.Sprintf("--build-arg %q: want KEY=VALUE", redact.Text(a)))
		case reservedBuildArgs[k] != "":
			problems = append(problems, fmt.Sprintf("--build-arg %s: set by epp-build (use %s)", k, reservedBuildArgs[k]))
		case strings.HasPrefix(k, "CAPI_"):
			problems = append(problems, fmt.Sprintf("--build-arg %s: set by epp-build from the recipe and --capi-*", k))
		case ok:
			fp.buildArgs[k] = v
		}
	}
	if o.Compile != CompileContainer {
		for _, set := range []struct {
			flag string
			on   bool
		}{{"--ca-bundle", f.CABundle != ""}, {"--cargo-mirror", f.CargoMirror != ""}, {"--secret", len(f.Secrets) > 0}} {
			if set.on {
				problems = append(problems, set.flag+" reaches the fetches inside the solve, and only --compile container fetches there; host mode runs go and cargo here, with this machine's trust store and cargo config")
			}
		}
	}
	return fp, problems, refused
}

// readSecret parses one --secret value and reads it, as buildx does: the
// id names it; src (or source) is a file, env a variable; with neither,
// the variable named by the id if it is set, else the file.
func readSecret(spec string, lookup func(string) (string, bool)) (string, []byte, error) {
	fields, err := csv.NewReader(strings.NewReader(spec)).Read()
	if err != nil {
		return "", nil, fmt.Errorf("--secret %q: %v", redact.Text(spec), err)
	}
	var id, src, envVar, typ string
	for _, field := range fields {
		k, v, ok := strings.Cut(field, "=")
		if !ok {
			return "", nil, fmt.Errorf("--secret %q: %q is not KEY=VALUE (want id=ID,src=FILE or id=ID,env=VAR)", redact.Text(spec), redact.Text(field))
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "id":
			id = v
		case "src", "source":
			src = v
		case "env":
			envVar = v
		case "type":
			typ = v
		default:
			return "", nil, fmt.Errorf("--secret %q: unknown key %q (want id, src, env, type)", redact.Text(spec), k)
		}
	}
	if id == "" {
		return "", nil, fmt.Errorf("--secret %q: no id (want id=ID,src=FILE or id=ID,env=VAR)", redact.Text(spec))
	}
	if strings.HasPrefix(id, "epp-build-") || strings.ContainsAny(id, "/ ") {
		return "", nil, fmt.Errorf("--secret id %q: ids starting with epp-build- are epp-build's own, and an id is one path element", id)
	}
	switch typ {
	case "", "file", "env":
	default:
		return "", nil, fmt.Errorf("--secret %s: type %q: use file or env", id, typ)
	}
	if typ == "env" && envVar == "" {
		envVar = id
	}
	if src == "" && envVar == "" {
		if _, ok := lookup(id); ok && typ != "file" {
			envVar = id
		} else {
			src = id
		}
	}
	if envVar != "" {
		v, ok := lookup(envVar)
		if !ok {
			return "", nil, fmt.Errorf("--secret %s: environment variable %s is not set", id, envVar)
		}
		return id, []byte(v), nil
	}
	data, err := inputfile.ReadFile(src, "", secretLimit)
	if refused := (*inputfile.Error)(nil); errors.As(err, &refused) {
		return "", nil, fmt.Errorf("--secret %s: %w", id, err)
	}
	if err != nil {
		return "", nil, fmt.Errorf("--secret %s: %v", id, err)
	}
	return id, data, nil
}

func hasCertificate(data []byte) bool {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return false
		}
		if b.Type == "CERTIFICATE" {
			if _, err := x509.ParseCertificate(b.Bytes); err == nil {
				return true
			}
		}
	}
}

// rememberURLCredentials registers the passwords (or lone tokens) of the
// URLs in a list setting (GOPROXY is comma- or pipe-separated), so that
// no message shows them in any form.
func rememberURLCredentials(list string) {
	for _, raw := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == '|' }) {
		u, err := url.Parse(strings.TrimPrefix(raw, "sparse+"))
		if err != nil || u.User == nil {
			continue
		}
		if pw, ok := u.User.Password(); ok {
			redact.Remember(u.User.Username(), pw)
		} else {
			redact.Remember("", u.User.Username())
		}
	}
}

// secretSetting says whether a cargo setting's value is a credential.
func secretSetting(key string) bool {
	return strings.Contains(key, "TOKEN") || strings.Contains(key, "CREDENTIAL") || strings.Contains(key, "SECRET_KEY")
}

// solveSecrets are what the solve's session serves: the fetch script,
// the CA bundle, the cargo config and the --secret values.
func (fp *fetchPlan) solveSecrets() map[string][]byte {
	env := map[string]string{}
	for k, v := range fp.goEnv {
		env[k] = v
	}
	for k, v := range fp.cargoEnv {
		env[k] = v
	}
	out := map[string][]byte{image.FetchSecret: image.FetchScript(env, fp.secretIDs())}
	if fp.ca != nil {
		out[image.CASecret] = fp.ca
	}
	if fp.mirror != "" {
		out[image.CargoConfigSecret] = []byte("[source.crates-io]\nreplace-with = \"epp-build-mirror\"\n\n[source.epp-build-mirror]\nregistry = " +
			strconv.Quote(fp.mirror) + "\n")
	}
	for id, v := range fp.secrets {
		out[id] = v
	}
	return out
}

func (fp *fetchPlan) secretIDs() []string {
	ids := make([]string, 0, len(fp.secrets))
	for id := range fp.secrets {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// solveBuildArgs are the build args the fetch settings add: GOFLAGS and
// the --build-arg values.
func (fp *fetchPlan) solveBuildArgs() map[string]string {
	out := map[string]string{}
	for k, v := range fp.buildArgs {
		out[k] = v
	}
	if fp.goFlags != "" {
		out["GOFLAGS"] = fp.goFlags
	}
	return out
}

// hostEnv is env with the flags' Go and cargo settings, for host mode's
// go and cargo.
func (fp *fetchPlan) hostEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	env = slices.Clone(env)
	for _, k := range GoSettings {
		v := fp.goEnv[k]
		if k == "GOFLAGS" {
			v = fp.goFlags
		}
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range fp.cargoEnv {
		env = append(env, k+"="+v)
	}
	return env
}

// report is what the report records: every value through the one
// redaction rule, credentials masked, secret contents left out.
func (fp *fetchPlan) report() *report.Fetch {
	r := &report.Fetch{CargoMirror: redact.URL(fp.mirror), Secrets: fp.secretIDs()}
	if len(fp.goEnv) > 0 || fp.goFlags != "" {
		r.Go = map[string]string{}
		for k, v := range fp.goEnv {
			r.Go[k] = redact.Text(v)
		}
		if fp.goFlags != "" {
			r.Go["GOFLAGS"] = redact.Text(fp.goFlags)
		}
	}
	if len(fp.cargoEnv) > 0 {
		r.Cargo = map[string]string{}
		for k, v := range fp.cargoEnv {
			if secretSetting(k) {
				v = redact.Mask
			}
			r.Cargo[k] = redact.Text(v)
		}
	}
	if fp.ca != nil {
		sum := sha256.Sum256(fp.ca)
		r.CABundleSHA256 = hex.EncodeToString(sum[:])
	}
	if len(fp.buildArgs) > 0 {
		r.BuildArgs = map[string]string{}
		for k, v := range fp.buildArgs {
			r.BuildArgs[k] = redact.Text(v)
		}
	}
	if r.Go == nil && r.Cargo == nil && r.CargoMirror == "" && r.CABundleSHA256 == "" && len(r.Secrets) == 0 && r.BuildArgs == nil {
		return nil
	}
	return r
}

// describe names the settings in effect for what failed to fetch, for
// the FetchError.
func (fp *fetchPlan) describe(what string) string {
	var parts []string
	if what == image.FetchGoModules {
		for _, k := range GoSettings {
			if v := fp.goEnv[k]; v != "" {
				parts = append(parts, k+"="+redact.Text(v))
			}
		}
		if len(fp.goEnv) == 0 || fp.goEnv["GOPROXY"] == "" {
			parts = append(parts, "GOPROXY: the builder image's default")
		}
	} else if fp.mirror != "" {
		parts = append(parts, "crates.io mirror "+redact.URL(fp.mirror))
	}
	if fp.ca != nil {
		parts = append(parts, "with --ca-bundle")
	} else {
		parts = append(parts, "no --ca-bundle")
	}
	return strings.Join(parts, ", ")
}
