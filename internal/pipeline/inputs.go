package pipeline

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/report"
)

// treeFileLimit bounds a file read from a checked-out tree for the report:
// the tree comes from a repository, which can put a symlink to /dev/zero
// where go.mod or Cargo.toml is expected.
var treeFileLimit = inputfile.Limit{Bytes: 64 << 20, What: "a file of the upstream or C API tree"}

// goModules reads the patched tree's go.mod and go.sum: the upstream's own
// module (path, and the version its pin names) and every module go.sum
// holds with its hash, for the report and the provenance. A tree without
// go.mod gives nothing; a missing go.sum gives no module list.
func goModules(in Input) (*report.GoModule, []report.GoModule) {
	data, err := inputfile.ReadFile(filepath.Join(in.TreeDir, "go.mod"), "", treeFileLimit)
	if err != nil {
		return nil, nil
	}
	path := modfile.ModulePath(data)
	if path == "" {
		return nil, nil
	}
	main := &report.GoModule{Path: path, Version: upstreamVersion(in)}
	sum, err := inputfile.ReadFile(filepath.Join(in.TreeDir, "go.sum"), "", treeFileLimit)
	if err != nil {
		return main, nil
	}
	return main, parseGoSum(sum)
}

// upstreamVersion is the upstream module's version: the recipe's module
// version, else its ref when that is a semantic version tag, else the
// pseudo-version of the pinned commit at its commit time (as the module
// proxy names an untagged commit).
func upstreamVersion(in Input) string {
	if in.Recipe != nil {
		if v := in.Recipe.Upstream.ModuleVersion; v != "" {
			return v
		}
		if ref := in.Recipe.Upstream.Ref; semver.IsValid(ref) {
			return ref
		}
	}
	if len(in.UpstreamCommit) < 12 {
		return ""
	}
	return module.PseudoVersion("", "", in.UpstreamTime.UTC().Truncate(time.Second), in.UpstreamCommit[:12])
}

// parseGoSum lists the module hashes of a go.sum (not the go.mod-only
// lines), sorted by path and version.
func parseGoSum(data []byte) []report.GoModule {
	var out []report.GoModule
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || strings.HasSuffix(f[1], "/go.mod") {
			continue
		}
		out = append(out, report.GoModule{Path: f[0], Version: f[1], Sum: f[2]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Version < out[j].Version
	})
	return out
}

// crateVersion is the C API crate's version from its Cargo.toml, or the
// workspace's when the crate takes it from there ("" when neither says).
func crateVersion(src *capi.Checkout) string {
	if src == nil {
		return ""
	}
	crate := filepath.Join(src.Root, src.CrateDir, "Cargo.toml")
	v, fromWorkspace := tomlVersion(crate, "package")
	if fromWorkspace {
		v, _ = tomlVersion(filepath.Join(src.Root, "Cargo.toml"), "workspace.package")
	}
	return v
}

// tomlVersion reads `version = "..."` from the [table] of a Cargo.toml,
// and whether the table says `version.workspace = true` instead. It reads
// only what cargo writes for these keys, not all of TOML.
func tomlVersion(path, table string) (string, bool) {
	data, err := inputfile.ReadFile(path, "", treeFileLimit)
	if err != nil {
		return "", false
	}
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			in = line == "["+table+"]"
			continue
		}
		if !in {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch {
		case key == "version.workspace" && val == "true":
			return "", true
		case key == "version" && strings.HasPrefix(val, "{") && strings.Contains(val, "workspace"):
			return "", true
		case key == "version":
			return strings.Trim(val, `"'`), false
		}
	}
	return "", false
}

// writeCAPISPDX writes the SPDX document naming the C API into the build
// context, for the image to carry at image.CAPISPDXPath.
func writeCAPISPDX(contextDir string, in report.Inputs) error {
	doc, err := attest.CAPISPDX(in)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(contextDir, image.CAPISPDXFile), doc, 0o644)
}
