// Package vulnstest builds the pinned vulnerability database the tests of
// internal/vulns, the vulns command and make lint's self-scan read. It
// lives beside vulns, not in testutil, which every stage's tests import.
package vulnstest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/vulns"
)

// VulnDBVersion is the golang.org/x/vulndb whose OSV entries the
// vulnerability tests read: pinned, so that a finding appearing upstream
// does not change a test's answer.
const VulnDBVersion = "v0.0.0-20261105234957-e22db6528018"

// vulnDBIndexer names the indexer's output in the cache key, so that a
// database indexed by an older vulns.IndexOSV is built again.
const vulnDBIndexer = "index2"

// PinnedVulnDB is a vulnerability database built from VulnDBVersion.
type PinnedVulnDB struct {
	URL   string // file:///...
	Dir   string
	Stats vulns.IndexStats
}

var vulnDB struct {
	once sync.Once
	db   PinnedVulnDB
	err  error
}

// VulnDB returns the database built from VulnDBVersion's data/osv, which
// it fetches through the Go module proxy (the only network the tests
// use) and indexes once per version into the user cache folder, kept
// between runs. Without the proxy the test stops through testenv.Require.
func VulnDB(t testing.TB) PinnedVulnDB {
	t.Helper()
	vulnDB.once.Do(func() { vulnDB.db, vulnDB.err = BuildVulnDB() })
	if vulnDB.err != nil {
		testenv.Require(t, "golang.org/x/vulndb@"+VulnDBVersion+" from the Go module proxy", vulnDB.err.Error())
	}
	return vulnDB.db
}

// BuildVulnDB is VulnDB outside a test (make lint): the database, built
// or found in the cache, or why it could not be.
func BuildVulnDB() (PinnedVulnDB, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return PinnedVulnDB{}, err
	}
	dir := filepath.Join(cache, "epp-build-test", "vulndb", VulnDBVersion+"."+vulnDBIndexer)
	db := PinnedVulnDB{Dir: dir, URL: (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()}
	if data, err := os.ReadFile(filepath.Join(dir, "stats.json")); err == nil && json.Unmarshal(data, &db.Stats) == nil {
		return db, nil
	}
	mod, err := downloadModule("golang.org/x/vulndb@" + VulnDBVersion)
	if err != nil {
		return PinnedVulnDB{}, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return PinnedVulnDB{}, err
	}
	// Built beside and renamed into place, so that a test stopped half
	// way leaves no database that looks whole.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "building-")
	if err != nil {
		return PinnedVulnDB{}, err
	}
	defer os.RemoveAll(tmp)
	built := filepath.Join(tmp, "db")
	if db.Stats, err = vulns.IndexOSV(filepath.Join(mod.Dir, "data", "osv"), built, mod.Time); err != nil {
		return PinnedVulnDB{}, err
	}
	stats, err := json.Marshal(db.Stats)
	if err != nil {
		return PinnedVulnDB{}, err
	}
	if err := os.WriteFile(filepath.Join(built, "stats.json"), stats, 0o644); err != nil {
		return PinnedVulnDB{}, err
	}
	if err := os.Rename(built, dir); err != nil && !os.IsExist(err) {
		// Another test process may have won the race; its copy is as good.
		if _, serr := os.Stat(filepath.Join(dir, "stats.json")); serr != nil {
			return PinnedVulnDB{}, err
		}
	}
	return db, nil
}

type downloaded struct {
	Dir   string
	Info  string
	Error string
	Time  time.Time
}

// downloadModule fetches path@version into the module cache with the go
// command, outside any module.
func downloadModule(pathVersion string) (downloaded, error) {
	outside, err := os.MkdirTemp("", "epp-build-download-")
	if err != nil {
		return downloaded{}, err
	}
	defer os.RemoveAll(outside)
	cmd := exec.Command("go", "mod", "download", "-json", pathVersion)
	cmd.Dir = outside
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GO111MODULE=on")
	out, err := cmd.Output()
	var d downloaded
	if jerr := json.Unmarshal(out, &d); jerr == nil && d.Error != "" {
		return d, fmt.Errorf("go mod download %s: %s", pathVersion, d.Error)
	}
	if err != nil {
		return d, fmt.Errorf("go mod download %s: %w", pathVersion, err)
	}
	info, err := os.ReadFile(d.Info)
	if err != nil {
		return d, err
	}
	var meta struct{ Time time.Time }
	if err := json.Unmarshal(info, &meta); err != nil {
		return d, fmt.Errorf("%s: %w", d.Info, err)
	}
	d.Time = meta.Time
	return d, nil
}
