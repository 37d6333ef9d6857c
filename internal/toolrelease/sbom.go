package toolrelease

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// binarySBOM is an SPDX 2.3 document of one release binary: the binary
// (with its SHA-256), the Go standard library it was built with and every
// module the go command recorded in it, each with a Go package URL. It is
// read from the binary's own build information, so it names what was
// linked, not what go.mod allows.
func binarySBOM(path, name string, o Options) ([]byte, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sum, err := fileSHA256(path)
	if err != nil {
		return nil, err
	}
	doc := spdxDocument{
		SPDXVersion:       "SPDX-2.3",
		DataLicense:       "CC0-1.0",
		SPDXID:            "SPDXRef-DOCUMENT",
		Name:              name,
		DocumentNamespace: "https://github.com/epp-build/epp-build/releases/" + url.PathEscape(o.Version) + "/" + name + "-" + sum[:16],
		CreationInfo: spdxCreation{
			Created:  o.SourceDate.UTC().Format(time.RFC3339),
			Creators: []string{"Tool: epp-build-release-" + o.Version},
		},
		DocumentDescribes: []string{"SPDXRef-Binary"},
	}
	doc.Packages = append(doc.Packages, spdxPackage{
		SPDXID:           "SPDXRef-Binary",
		Name:             name,
		VersionInfo:      o.Version,
		DownloadLocation: "NOASSERTION",
		FilesAnalyzed:    false,
		Checksums:        []spdxChecksum{{Algorithm: "SHA256", Value: sum}},
		PrimaryPurpose:   "APPLICATION",
	})
	add := func(id, path, version string) {
		doc.Packages = append(doc.Packages, spdxPackage{
			SPDXID:           id,
			Name:             path,
			VersionInfo:      version,
			DownloadLocation: "NOASSERTION",
			ExternalRefs: []spdxRef{{
				Category: "PACKAGE-MANAGER", Type: "purl",
				Locator: "pkg:golang/" + purlPath(path) + "@" + url.PathEscape(version),
			}},
		})
		doc.Relationships = append(doc.Relationships, spdxRelationship{
			Element: "SPDXRef-Binary", Type: "DEPENDS_ON", Related: id,
		})
	}
	add("SPDXRef-Module-main", bi.Main.Path, o.Version)
	add("SPDXRef-Go-stdlib", "stdlib", bi.GoVersion)
	for i, dep := range bi.Deps {
		m := dep
		if m.Replace != nil {
			m = m.Replace
		}
		add(fmt.Sprintf("SPDXRef-Module-%d", i), m.Path, m.Version)
	}
	doc.Relationships = append([]spdxRelationship{{Element: "SPDXRef-DOCUMENT", Type: "DESCRIBES", Related: "SPDXRef-Binary"}}, doc.Relationships...)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// purlPath escapes each segment of a module path for a package URL.
func purlPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

type spdxDocument struct {
	SPDXVersion       string             `json:"spdxVersion"`
	DataLicense       string             `json:"dataLicense"`
	SPDXID            string             `json:"SPDXID"`
	Name              string             `json:"name"`
	DocumentNamespace string             `json:"documentNamespace"`
	CreationInfo      spdxCreation       `json:"creationInfo"`
	DocumentDescribes []string           `json:"documentDescribes"`
	Packages          []spdxPackage      `json:"packages"`
	Relationships     []spdxRelationship `json:"relationships"`
}

type spdxCreation struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type spdxPackage struct {
	SPDXID           string         `json:"SPDXID"`
	Name             string         `json:"name"`
	VersionInfo      string         `json:"versionInfo"`
	DownloadLocation string         `json:"downloadLocation"`
	FilesAnalyzed    bool           `json:"filesAnalyzed"`
	Checksums        []spdxChecksum `json:"checksums,omitempty"`
	ExternalRefs     []spdxRef      `json:"externalRefs,omitempty"`
	PrimaryPurpose   string         `json:"primaryPackagePurpose,omitempty"`
}

type spdxChecksum struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"checksumValue"`
}

type spdxRef struct {
	Category string `json:"referenceCategory"`
	Type     string `json:"referenceType"`
	Locator  string `json:"referenceLocator"`
}

type spdxRelationship struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}
