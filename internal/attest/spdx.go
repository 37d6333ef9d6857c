package attest

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/report"
)

// CAPISPDX is the SPDX 2.3 JSON document the image carries at
// image.CAPISPDXPath, naming the Rust C API linked into the EPP and the
// upstream module at the version its pin names, for SBOM generators that
// read SBOM files they find in an image (syft's sbom-cataloger, trivy). It
// has with one package, the C API crate:
// one package, the C API crate:
// name, version, the repository and commit it was built from (or its
// tree hash for a local checkout) and a cargo package URL. It is
// deterministic: created at SOURCE_DATE_EPOCH, a namespace made of the
// crate, version and commit.
func CAPISPDX(in report.Inputs) ([]byte, error) {
	c := in.CAPI
	crate := c.Crate
	if crate == "" {
		crate = "dynamo-c-api"
	}
	version := c.Version
	if version == "" {
		version = "NOASSERTION"
	}
	ident := c.Commit
	if ident == "" {
		ident = c.TreeHash
	}
	download := "NOASSERTION"
	if c.Repository != "" && c.Commit != "" {
		download = gitURI(c.Repository, c.Commit)
	}
	purl := "pkg:cargo/" + url.PathEscape(crate)
	if c.Version != "" {
		purl += "@" + url.PathEscape(c.Version)
	}
	if c.Repository != "" && c.Commit != "" {
		purl += "?vcs_url=" + url.QueryEscape(download)
	}
	comment := "Rust C API linked statically into the EPP"
	if c.Library != "" {
		comment += " (library " + c.Library + ")"
	}
	if ident != "" {
		comment += "; source " + ident
	}
	pkg := map[string]any{
		"SPDXID":           "SPDXRef-Package-capi",
		"name":             crate,
		"versionInfo":      version,
		"downloadLocation": download,
		"filesAnalyzed":    false,
		"licenseConcluded": "NOASSERTION",
		"licenseDeclared":  "NOASSERTION",
		"copyrightText":    "NOASSERTION",
		"supplier":         "NOASSERTION",
		"comment":          comment,
		"externalRefs": []map[string]string{{
			"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl", "referenceLocator": purl,
		}},
	}
	if c.Commit != "" {
		pkg["sourceInfo"] = "built from commit " + c.Commit
	}
	packages := []any{pkg}
	relationships := []map[string]string{{
		"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES", "relatedSpdxElement": "SPDXRef-Package-capi",
	}}
	if m := in.Module; m != nil && m.Version != "" {
		// The EPP's main module: built from a tree with -trimpath, its
		// build info says "(devel)", which syft shows as UNKNOWN.
		packages = append(packages, map[string]any{
			"SPDXID":           "SPDXRef-Package-upstream",
			"name":             m.Path,
			"versionInfo":      m.Version,
			"downloadLocation": orNoAssertion(gitURI(in.Upstream, in.UpstreamCommit)),
			"filesAnalyzed":    false,
			"licenseConcluded": "NOASSERTION",
			"licenseDeclared":  "NOASSERTION",
			"copyrightText":    "NOASSERTION",
			"supplier":         "NOASSERTION",
			"comment":          "the EPP's main module, patched by epp-build",
			"externalRefs": []map[string]string{{
				"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl", "referenceLocator": "pkg:golang/" + m.Path + "@" + url.PathEscape(m.Version),
			}},
		})
		relationships = append(relationships, map[string]string{
			"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES", "relatedSpdxElement": "SPDXRef-Package-upstream",
		}, map[string]string{
			"spdxElementId": "SPDXRef-Package-upstream", "relationshipType": "DEPENDS_ON", "relatedSpdxElement": "SPDXRef-Package-capi",
		})
	}
	doc := map[string]any{
		"spdxVersion":       "SPDX-2.3",
		"dataLicense":       "CC0-1.0",
		"SPDXID":            "SPDXRef-DOCUMENT",
		"name":              "epp-build C API " + crate,
		"documentNamespace": "https://github.com/epp-build/epp-build/spdx/capi/" + url.PathEscape(crate) + "/" + url.PathEscape(version) + "/" + url.PathEscape(strings.TrimSpace(ident)),
		"creationInfo": map[string]any{
			"created":  time.Unix(in.SourceDateEpoch, 0).UTC().Format(time.RFC3339),
			"creators": []string{"Tool: epp-build"},
		},
		"packages":      packages,
		"relationships": relationships,
	}
	return json.MarshalIndent(doc, "", "  ")
}

func orNoAssertion(s string) string {
	if s == "" {
		return "NOASSERTION"
	}
	return s
}
