package attest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/vulns"
)

// VulnsPredicate is cosign's vulnerability scan predicate (what `cosign
// attest --type vuln` writes): the scan is an in-toto statement like the
// report, so cosign verify-attestation --type vuln and the tools that
// read cosign's predicates read it, and this package's checks of a
// statement referrer's subject and digests hold for it as they are.
const VulnsPredicate = "https://cosign.sigstore.dev/attestation/vuln/v1"

// ScanStatement is the build's vulnerability scan as an in-toto statement
// about the index.
type ScanStatement struct {
	Type          string        `json:"_type"`
	Subject       []Subject     `json:"subject"`
	PredicateType string        `json:"predicateType"`
	Predicate     ScanPredicate `json:"predicate"`
}

// ScanPredicate is cosign's vuln predicate; Scanner.Result is epp-build's.
type ScanPredicate struct {
	Invocation ScanInvocation `json:"invocation"`
	Scanner    Scanner        `json:"scanner"`
	Metadata   ScanMetadata   `json:"metadata"`
}

// ScanInvocation says what ran the scan.
type ScanInvocation struct {
	Parameters []string `json:"parameters"`
	URI        string   `json:"uri"`
	EventID    string   `json:"event_id"`
	BuilderID  string   `json:"builder.id"`
}

// Scanner names the scanner, its database and what it found.
type Scanner struct {
	URI     string     `json:"uri"`
	Version string     `json:"version"`
	DB      ScanDB     `json:"db"`
	Result  ScanResult `json:"result"`
}

// ScanDB is the vulnerability database, by URL and modification time.
type ScanDB struct {
	URI     string `json:"uri"`
	Version string `json:"version"`
}

// ScanMetadata is when the scan ran.
type ScanMetadata struct {
	ScanStartedOn  time.Time `json:"scanStartedOn"`
	ScanFinishedOn time.Time `json:"scanFinishedOn"`
}

// ScanResult ties the scan to the image: each platform's image and the
// digest of the binary scanned, which that image holds at Binary.
type ScanResult struct {
	IndexDigest string         `json:"indexDigest"`
	Binary      string         `json:"binary"`
	Images      []ScannedImage `json:"images"`
	Report      *vulns.Report  `json:"report"`
}

// ScannedImage is one platform's image and the binary scanned for it.
type ScannedImage struct {
	Platform     string `json:"platform"`
	Digest       string `json:"digest"`
	BinaryDigest string `json:"binaryDigest"`
}

// Scan is a scan referrer read back from the registry.
type Scan struct {
	Digest    string         `json:"digest"`
	Statement *ScanStatement `json:"statement"`
}

// NewScanStatement makes the statement of rep, a scan of the binary at
// binary in each platform image of the index; each image's binary is the
// report's target of its platform.
func NewScanStatement(repository, indexDigest, binary string, images []PlatformImage, rep *vulns.Report, finished time.Time) (*ScanStatement, error) {
	algo, hex, ok := strings.Cut(indexDigest, ":")
	if !ok || algo != "sha256" || len(hex) != 64 {
		return nil, fmt.Errorf("scan attestation: index digest %q is not sha256:<64 hex>", indexDigest)
	}
	byPlatform := map[string]string{}
	for _, t := range rep.Targets {
		byPlatform[t.Platform] = t.Digest
	}
	res := ScanResult{IndexDigest: indexDigest, Binary: binary, Images: []ScannedImage{}, Report: rep}
	for _, img := range images {
		bd, ok := byPlatform[img.Platform]
		if !ok {
			return nil, fmt.Errorf("scan attestation: the scan has no binary of %s", img.Platform)
		}
		res.Images = append(res.Images, ScannedImage{Platform: img.Platform, Digest: img.Digest, BinaryDigest: bd})
	}
	db := ScanDB{URI: redact.Text(rep.DB)}
	if rep.DBModified != nil {
		db.Version = rep.DBModified.Format(time.RFC3339)
	}
	params := []string{"--vulns", "fail-on=" + string(rep.FailOn)}
	if rep.VEX != "" {
		params = append(params, "--vex", rep.VEX)
	}
	return &ScanStatement{
		Type:          StatementType,
		Subject:       []Subject{{Name: repository, Digest: map[string]string{"sha256": hex}}},
		PredicateType: VulnsPredicate,
		Predicate: ScanPredicate{
			Invocation: ScanInvocation{Parameters: params, URI: "epp-build build"},
			Scanner:    Scanner{URI: "pkg:golang/golang.org/x/vuln", Version: rep.Scanner, DB: db, Result: res},
			Metadata:   ScanMetadata{ScanStartedOn: rep.ScannedAt, ScanFinishedOn: finished.UTC().Truncate(time.Second)},
		},
	}, nil
}

// AttachScan pushes stmt as a referrer of the index, as Attach does the
// report, and returns the referrer's digest.
func AttachScan(ctx context.Context, repository, indexDigest string, stmt *ScanStatement, ro image.RegistryOptions) (string, error) {
	data, err := json.Marshal(stmt)
	if err != nil {
		return "", err
	}
	return attachStatement(ctx, repository, indexDigest, data, VulnsPredicate, ro)
}

// readScans reads every scan referrer of the index; one that cannot be
// read or is about another subject is rejected, naming it.
func (img *Image) readScans(ctx context.Context, repo name.Repository, index v1.Hash, candidates []v1.Descriptor, opts []remote.Option) error {
	for _, d := range candidates {
		raw, _, err := readStatement(repo.Digest(d.Digest.String()), index, VulnsPredicate, true, opts)
		if err == nil {
			var stmt ScanStatement
			if err = json.Unmarshal(raw, &stmt); err == nil {
				img.Scans = append(img.Scans, Scan{Digest: d.Digest.String(), Statement: &stmt})
				continue
			}
		}
		if ctx.Err() != nil || registryFailure(err) {
			return fmt.Errorf("vulnerability scan referrer %s of %s: %w", d.Digest, index, err)
		}
		msg := fmt.Sprintf("skipped vulnerability scan referrer %s: %s", d.Digest, redact.Text(err.Error()))
		img.Rejected = append(img.Rejected, msg)
		img.Warnings = append(img.Warnings, msg)
	}
	return nil
}

// checkScans says how each scan referrer fails to describe this index:
// it must record the index, each of its platform images, and for each
// the binary the image holds (compared when the layers were read).
func (img *Image) checkScans() []string {
	var problems []string
	want := map[string]string{}
	for _, p := range img.Platforms {
		want[p.Platform] = p.Digest
	}
	for _, s := range img.Scans {
		res := s.Statement.Predicate.Scanner.Result
		bad := func(format string, args ...any) {
			problems = append(problems, fmt.Sprintf("vulnerability scan %s: ", s.Digest)+fmt.Sprintf(format, args...))
		}
		if res.IndexDigest != img.IndexDigest {
			bad("it records index %s, the registry holds %s: it is another image's scan", res.IndexDigest, img.IndexDigest)
		}
		seen := map[string]bool{}
		for _, si := range res.Images {
			seen[si.Platform] = true
			d, ok := want[si.Platform]
			switch {
			case !ok:
				bad("it records %s, which the index lacks", si.Platform)
				continue
			case d != si.Digest:
				bad("it records %s as %s, the index holds %s", si.Platform, si.Digest, d)
			}
			if res.Report == nil || !scanned(res.Report, si.Platform, si.BinaryDigest) {
				bad("its report has no scan of the %s binary %s", si.Platform, si.BinaryDigest)
			}
			if img.binaryDigest == nil {
				continue
			}
			got, err := img.binaryDigest(si.Platform, res.Binary)
			switch {
			case err != nil:
				bad("%s: %v", si.Platform, redact.Text(err.Error()))
			case got != si.BinaryDigest:
				bad("it scanned a %s binary %s, the image's %s is %s: the scan is not of this image's binary", si.Platform, si.BinaryDigest, res.Binary, got)
			}
		}
		for p := range want {
			if !seen[p] {
				bad("it does not record %s", p)
			}
		}
	}
	return problems
}

// scanned says whether rep has a target of platform with digest.
func scanned(rep *vulns.Report, platform, digest string) bool {
	for _, t := range rep.Targets {
		if t.Platform == platform && t.Digest == digest {
			return true
		}
	}
	return false
}
