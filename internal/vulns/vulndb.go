package vulns

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/semver"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// IndexStats says what IndexOSV wrote.
type IndexStats struct {
	Entries  int       // OSV entries, one ID/<id>.json each
	Modules  int       // modules named by index/modules.json
	Modified time.Time // index/db.json's modified
}

// The v1 layout the go tooling reads from a file:// database
// (https://go.dev/doc/security/vuln/database#api): three indexes and one
// file per entry. Only the .json files: the .json.gz twins are for HTTP.
type (
	dbMeta struct {
		Modified time.Time `json:"modified"`
	}
	moduleMeta struct {
		Path  string       `json:"path"`
		Vulns []moduleVuln `json:"vulns"`
	}
	moduleVuln struct {
		ID       string    `json:"id"`
		Modified time.Time `json:"modified"`
		Fixed    string    `json:"fixed,omitempty"`
	}
	vulnMeta struct {
		ID       string    `json:"id"`
		Modified time.Time `json:"modified"`
		Aliases  []string  `json:"aliases,omitempty"`
	}
)

// osvEntry is the part of an OSV entry the indexes and the report read.
type osvEntry struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases"`
	Summary  string    `json:"summary"`
	Details  string    `json:"details"`
	Affected []struct {
		Package struct {
			Name string `json:"name"`
		} `json:"package"`
		Ranges []osvRange `json:"ranges"`
	} `json:"affected"`
}

type osvRange struct {
	Type   string `json:"type"`
	Events []struct {
		Introduced string `json:"introduced"`
		Fixed      string `json:"fixed"`
	} `json:"events"`
}

// entryID is the shape of the IDs the Go database issues; anything else
// could name a path outside ID/.
var entryID = regexp.MustCompile(`^GO-[0-9]{4}-[0-9]+$`)

// entryLimit bounds one OSV file (or a VEX document): the largest entry
// in the database is tens of kilobytes.
var entryLimit = inputfile.Limit{Bytes: 4 << 20, What: "an OSV entry"}

// IndexOSV writes into out (created; it must not exist) a vulnerability
// database in the layout the go tooling serves, from a folder of OSV JSON
// files such as golang.org/x/vulndb's data/osv. modified is the earliest
// the database says it was modified: the vulndb module's OSV files carry
// no modification times, so its commit time is the best one.
func IndexOSV(osvDir, out string, modified time.Time) (IndexStats, error) {
	names, err := filepath.Glob(filepath.Join(osvDir, "*.json"))
	if err != nil {
		return IndexStats{}, fmt.Errorf("list OSV entries in %s: %w", osvDir, err)
	}
	if len(names) == 0 {
		return IndexStats{}, fmt.Errorf("no OSV entries (*.json) in %s", osvDir)
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		return IndexStats{}, fmt.Errorf("create the database folder: %w", err)
	}
	for _, sub := range []string{"index", "ID"} {
		if err := os.Mkdir(filepath.Join(out, sub), 0o755); err != nil {
			return IndexStats{}, fmt.Errorf("create the database folder: %w", err)
		}
	}
	db := dbMeta{Modified: modified.UTC()}
	modules := map[string]*moduleMeta{}
	var vulns []vulnMeta
	for _, name := range names {
		data, err := inputfile.ReadFile(name, "", entryLimit)
		if err != nil {
			return IndexStats{}, err
		}
		var e osvEntry
		if err := json.Unmarshal(data, &e); err != nil {
			return IndexStats{}, fmt.Errorf("read OSV entry %s: %w", name, err)
		}
		if !entryID.MatchString(e.ID) {
			return IndexStats{}, fmt.Errorf("OSV entry %s: id %q is not a Go database id (GO-YYYY-NNNN)", name, e.ID)
		}
		if e.Modified.After(db.Modified) {
			db.Modified = e.Modified
		}
		vulns = append(vulns, vulnMeta{ID: e.ID, Modified: e.Modified, Aliases: e.Aliases})
		// One row per module: an entry may list a module in several
		// blocks (one per package), and the row's fixed version must
		// hold for all of them, so a block with no fix leaves it empty.
		fixed := map[string]string{}
		var order []string
		for _, a := range e.Affected {
			f := latestFixed(a.Ranges)
			old, seen := fixed[a.Package.Name]
			switch {
			case !seen:
				order = append(order, a.Package.Name)
			case old == "" || f == "":
				f = ""
			case versionLess(f, old):
				f = old
			}
			fixed[a.Package.Name] = f
		}
		for _, path := range order {
			m := modules[path]
			if m == nil {
				m = &moduleMeta{Path: path}
				modules[path] = m
			}
			m.Vulns = append(m.Vulns, moduleVuln{ID: e.ID, Modified: e.Modified, Fixed: fixed[path]})
		}
		// The entry as published, byte for byte.
		if err := os.WriteFile(filepath.Join(out, "ID", e.ID+".json"), data, 0o644); err != nil {
			return IndexStats{}, fmt.Errorf("write entry %s: %w", e.ID, err)
		}
	}
	if len(vulns) != len(names) || hasDuplicate(vulns) {
		return IndexStats{}, errors.New("two OSV files in " + osvDir + " have one id")
	}
	sort.Slice(vulns, func(i, j int) bool { return vulns[i].ID < vulns[j].ID })
	mods := make([]*moduleMeta, 0, len(modules))
	for _, m := range modules {
		sort.Slice(m.Vulns, func(i, j int) bool { return m.Vulns[i].ID < m.Vulns[j].ID })
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	for name, v := range map[string]any{"db.json": db, "modules.json": mods, "vulns.json": vulns} {
		data, err := json.Marshal(v)
		if err != nil {
			return IndexStats{}, err
		}
		if err := os.WriteFile(filepath.Join(out, "index", name), data, 0o644); err != nil {
			return IndexStats{}, fmt.Errorf("write index/%s: %w", name, err)
		}
	}
	return IndexStats{Entries: len(vulns), Modules: len(mods), Modified: db.Modified}, nil
}

func hasDuplicate(vulns []vulnMeta) bool {
	seen := make(map[string]bool, len(vulns))
	for _, v := range vulns {
		if seen[v.ID] {
			return true
		}
		seen[v.ID] = true
	}
	return false
}

// latestFixed is the version from which no later version is affected, or
// "" when the last thing a range says is that the flaw was (re)introduced:
// the client skips fetching an entry for a module at or above it.
func latestFixed(ranges []osvRange) string {
	var fixed, introduced string
	for _, r := range ranges {
		if r.Type != "SEMVER" {
			continue
		}
		for _, ev := range r.Events {
			if ev.Fixed != "" && versionLess(fixed, ev.Fixed) {
				fixed = ev.Fixed
			}
			if ev.Introduced != "" && ev.Introduced != "0" && versionLess(introduced, ev.Introduced) {
				introduced = ev.Introduced
			}
		}
	}
	if fixed == "" || versionLess(fixed, introduced) {
		return ""
	}
	return fixed
}

// versionLess compares two OSV SEMVER versions (no leading v); "" is
// below every version.
func versionLess(a, b string) bool {
	if a == "" {
		return b != ""
	}
	return semver.Compare("v"+strings.TrimPrefix(a, "v"), "v"+strings.TrimPrefix(b, "v")) < 0
}
