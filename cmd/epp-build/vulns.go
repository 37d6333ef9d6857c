package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/vulns"
)

func newVulnsCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var all, verbose bool
	var dirs, binaries, images []string
	var db, vex string
	var ro image.RegistryOptions
	output := vulns.Text
	cmd := &cobra.Command{
		Use:   "vulns (--version V... | --all | --recipe DIR | --dir DIR... | --binary FILE... | --image REF...)",
		Short: "Report the known vulnerabilities a line's EPP calls, imports or only requires",
		Long: `vulns scans with govulncheck (golang.org/x/vuln, run in-process) against the Go
vulnerability database, and reports each finding: its OSV id and aliases (CVE, GHSA),
the module and the version found, the version that fixes it, and how close the EPP
comes to it:

  called     a call path from the EPP reaches a vulnerable function (one path is shown)
  imported   a vulnerable package is imported, no vulnerable function is reached
  required   the module is in the build, no vulnerable package is imported

Findings in Go itself name the module stdlib (or toolchain) and Go versions.

--version V (repeatable), --all or --recipe DIR applies each line's series into a temporary folder,
as apply does, and scans its ./cmd/epp and ./cmd/bbr (where the tree has it) in source
mode. --dir DIR scans an applied tree as it is (apply --out DIR); --binary FILE scans a
built EPP in binary mode, which sees the symbols linked, not the call paths. --image REF
pulls /epp from each platform image of the image (its index, or a single image) from
the registry and scans each in binary mode: one target per platform, named by its
digest (registry credentials come from the Docker config; --insecure for plain HTTP).

--db takes the database the go tooling serves: https://vuln.go.dev (the default), another
URL, or file:///DIR (a folder in the same layout; a plain folder path is taken as one).
--vex FILE is an OpenVEX document: each finding a not_affected statement names (by id or
alias, and by module when the statement lists pkg:golang/ subcomponents) is suppressed,
counted apart and does not fail the command; -v shows the statement's justification.

-o json is one document for every target; -o markdown a table of findings by line for
a release review; -o sarif and -o openvex are govulncheck's own formats (sarif holds a
run per target; openvex describes one target and adds the --vex statements used).

vulns exits 10 when any target calls a vulnerable function no --vex statement answers
for, after printing the whole report.`,
		Example: `  epp-build vulns --version v0.7.0
  epp-build vulns --all -o markdown             # the release review's table
  epp-build vulns --dir ./gaie -v               # a tree from apply --out ./gaie
  epp-build vulns --binary ./epp -o sarif > vulns.sarif
  epp-build vulns --image registry.example/dynamo/epp:v1.4.2   # each platform's /epp
  epp-build vulns --version v1.4.2 --vex release.vex.json -o openvex
  epp-build vulns --version v0.7.0 --db file:///srv/vulndb`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req, err := vulnsRequest(g, &f, cmd, all, dirs, binaries, images, db, vex, output)
			if err != nil {
				return err
			}
			req.Registry = ro
			rep, err := vulns.Scan(cmd.Context(), req)
			if err != nil {
				return err
			}
			if err := vulns.Write(cmd.Context(), cmd.OutOrStdout(), rep, output, verbose); err != nil {
				return err
			}
			return rep.Err()
		},
	}
	f.registerVersions(cmd)
	cmd.Flags().Lookup("version").Usage = "the release line to scan: a `VERSION` folder under --patches (repeatable)"
	f.registerProgress(cmd)
	cmd.Flags().BoolVar(&all, "all", false, "scan every release line under --patches")
	cmd.Flags().StringArrayVar(&dirs, "dir", nil, "scan this applied tree as it is (repeatable)")
	cmd.Flags().StringArrayVar(&binaries, "binary", nil, "scan this built EPP binary (repeatable)")
	cmd.Flags().StringArrayVar(&images, "image", nil, "scan the /epp of each platform image of this image in the registry (repeatable)")
	cmd.Flags().BoolVar(&ro.Insecure, "insecure", false, "--image: allow a plain-HTTP or untrusted registry")
	cmd.Flags().StringVar(&db, "db", vulns.DefaultDB, "vulnerability database: an https URL or file:///DIR in the layout the go tooling serves")
	cmd.Flags().StringVar(&vex, "vex", "", "OpenVEX document whose not_affected statements suppress their findings")
	cmd.Flags().VarP(&output, "output", "o", "output format: text (or table), json, markdown, sarif or openvex")
	verboseFlag(cmd, &verbose)
	cmd.Flags().Lookup("verbose").Usage = "show each finding's summary and path, and each suppression's justification"
	return cmd
}

// vulnsRequest checks the flags, before anything is fetched or scanned,
// and loads the recipes they name.
func vulnsRequest(g *globalFlags, f *recipeFlags, cmd *cobra.Command, all bool, dirs, binaries, images []string, db, vex string, output vulns.Format) (vulns.Request, error) {
	var req vulns.Request
	versions := f.versions
	switch {
	case all && len(versions) > 0:
		return req, usageError{fmt.Errorf("--all and --version both given: choose one")}
	case f.dir != "" && (all || len(versions) > 0):
		return req, usageError{fmt.Errorf("--recipe names one line: drop --version and --all")}
	case all:
		var err error
		if versions, err = recipe.Versions(g.patches); err != nil {
			return req, usageError{err}
		}
	}
	lines := len(versions)
	if f.dir != "" {
		lines = 1
	}
	if lines+len(dirs)+len(binaries)+len(images) == 0 {
		return req, usageError{fmt.Errorf("nothing to scan: give --version, --all, --dir, --binary or --image")}
	}
	if output == vulns.OpenVEX && (lines+len(dirs)+len(binaries) > 1 || len(images) > 0) {
		return req, usageError{fmt.Errorf("-o openvex describes one scan: give one --version, --dir or --binary")}
	}
	for _, ref := range images {
		if _, err := name.ParseReference(ref); err != nil {
			return req, usageError{fmt.Errorf("--image %q: %w", redact.Text(ref), err)}
		}
	}
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return req, usageError{fmt.Errorf("--dir %s: not a folder", d)}
		}
	}
	for _, b := range binaries {
		if fi, err := os.Stat(b); err != nil || !fi.Mode().IsRegular() {
			return req, usageError{fmt.Errorf("--binary %s: not a file", b)}
		}
	}
	dbURL, err := databaseURL(db)
	if err != nil {
		return req, usageError{err}
	}
	if f.dir != "" {
		versions = []string{""} // load reads --recipe
	}
	for _, v := range versions {
		f.version = v
		r, err := f.load(g)
		if err != nil {
			return req, err
		}
		req.Recipes = append(req.Recipes, r)
	}
	if len(req.Recipes) > 0 {
		if req.Apply, err = f.options(cmd.ErrOrStderr(), false); err != nil {
			return req, err
		}
	}
	req.Dirs, req.Binaries, req.Images, req.DB, req.VEX = dirs, binaries, images, dbURL, vex
	req.Progress = f.reporter(cmd.ErrOrStderr())
	return req, nil
}

// databaseURL is --db as the scanner takes it: http(s) and file URLs as
// they are, a folder as a file URL.
func databaseURL(db string) (string, error) {
	u, err := url.Parse(db)
	if err == nil && (u.Scheme == "https" || u.Scheme == "http" || u.Scheme == "file") {
		return strings.TrimRight(db, "/"), nil
	}
	if fi, serr := os.Stat(db); serr == nil && fi.IsDir() {
		abs, err := filepath.Abs(db)
		if err != nil {
			return "", err
		}
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
	}
	return "", fmt.Errorf("--db %q: give an https URL, file:///DIR or a folder holding the database", db)
}
