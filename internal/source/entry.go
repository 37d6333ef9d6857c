package source

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// entryFormat changes when the entry layout changes; older entries are
// rebuilt. 2: redacted origin and the fetch time. 3: the files' contents
// in one blob store instead of a folder of files.
const entryFormat = 3

// entryMeta is entry.json: what the entry holds and how to check it.
type entryMeta struct {
	Format     int       `json:"format"`
	Via        Kind      `json:"via"`
	Commit     string    `json:"commit"`
	BaseCommit string    `json:"baseCommit"`
	Tree       string    `json:"tree"`
	Time       time.Time `json:"time"`
	// Shallow is true when BaseCommit's parents are not in the pack.
	Shallow bool `json:"shallow"`
	// Pack is the pack's base name in git/objects/pack ("pack-<hash>").
	Pack string `json:"pack"`
	// Origin says where the entry came from (URL, folder or proxy and
	// module@version), redacted: it is shown and stored in work trees.
	Origin string `json:"origin"`
	// Fetched is when the entry was built.
	Fetched       time.Time `json:"fetched"`
	Ref           string    `json:"ref,omitempty"`
	Module        string    `json:"module,omitempty"`
	ModuleVersion string    `json:"moduleVersion,omitempty"`
	ModuleHash    string    `json:"moduleHash,omitempty"`
	// ModuleHashes are the h1: hashes of the module zips made of the
	// tree, by module@version, computed once (Tree.ModuleHash).
	ModuleHashes map[string]string `json:"moduleHashes,omitempty"`
	Files        []fileEntry       `json:"files"`
}

// expectation is what the request needs an entry to be.
type expectation struct {
	commit        string
	module        string // set for module proxy entries
	moduleVersion string
	moduleHash    string
}

func writeEntryMeta(dir string, m *entryMeta) error {
	m.Format = entryFormat
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, entryFile), data, 0o644); err != nil {
		return fmt.Errorf("cache entry %s: %w", dir, err)
	}
	return nil
}

// loadEntry reads and verifies the entry in dir: metadata consistent with
// want, the commit object hashing to BaseCommit, the file list rebuilding
// its tree and every object present in the pack index. File contents are
// checked later, by Materialize, while it copies them.
func loadEntry(dir string, want expectation) (*Tree, error) {
	reason, err := inputfile.ReadFile(filepath.Join(dir, corruptMark), "", cacheNoteLimit)
	if refused := (*inputfile.Error)(nil); err == nil || errors.As(err, &refused) {
		return nil, corruptf("marked corrupt: %s", strings.TrimSpace(string(reason)))
	}
	data, err := inputfile.ReadFile(filepath.Join(dir, entryFile), "", entryMetaLimit)
	if err != nil {
		return nil, corruptf("%v", err)
	}
	var m entryMeta
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, corruptf("%s: %v", entryFile, err)
	}
	trees, err := m.check(want)
	if err != nil {
		return nil, err
	}
	if err := verifyObjects(filepath.Join(dir, gitDirName), &m, trees); err != nil {
		return nil, err
	}
	if err := m.checkRanges(filepath.Join(dir, blobsName)); err != nil {
		return nil, err
	}
	t := &Tree{Commit: m.Commit, BaseCommit: m.BaseCommit, Time: m.Time, Via: m.Via, Origin: m.Origin, Fetched: m.Fetched, entry: &m}
	return t.at(dir), nil
}

// check compares the metadata with the request and returns the tree hashes
// its file list implies.
func (m *entryMeta) check(want expectation) ([][20]byte, error) {
	switch {
	case m.Format != entryFormat:
		return nil, corruptf("entry format %d, this version writes %d", m.Format, entryFormat)
	case m.Commit != want.commit:
		return nil, corruptf("entry is for commit %s, not %s", m.Commit, want.commit)
	case want.module != "" && (m.Module != want.module || m.ModuleVersion != want.moduleVersion || m.ModuleHash != want.moduleHash):
		return nil, corruptf("entry is for module %s@%s %s, not %s@%s %s", m.Module, m.ModuleVersion, m.ModuleHash, want.module, want.moduleVersion, want.moduleHash)
	case m.Via != Git && m.Via != Path && m.Via != GoProxy:
		return nil, corruptf("unknown source %q", m.Via)
	case m.Via != GoProxy && m.BaseCommit != m.Commit:
		return nil, corruptf("base commit %s differs from commit %s", m.BaseCommit, m.Commit)
	case !fullHash.MatchString(m.BaseCommit) || !fullHash.MatchString(m.Tree):
		return nil, corruptf("base commit %q or tree %q is not an object id", m.BaseCommit, m.Tree)
	case !strings.HasPrefix(m.Pack, "pack-") || strings.ContainsAny(m.Pack, `/\`):
		return nil, corruptf("pack name %q", m.Pack)
	}
	root, trees, err := treeHashes(m.Files)
	if err != nil {
		return nil, corruptf("file list: %v", err)
	}
	if got := hex.EncodeToString(root[:]); got != m.Tree {
		return nil, corruptf("file list rebuilds tree %s, the commit has tree %s", got, m.Tree)
	}
	return trees, nil
}

// checkRanges checks that every file's content lies inside the blob
// store.
func (m *entryMeta) checkRanges(store string) error {
	fi, err := os.Lstat(store)
	if err != nil || !fi.Mode().IsRegular() {
		return corruptf("blob store %s is missing", blobsName)
	}
	for _, f := range m.Files {
		if f.hasContent() && (f.Offset < 0 || f.Size < 0 || f.Offset > fi.Size()-f.Size) {
			return corruptf("file %s: bytes %d+%d lie outside the %d-byte blob store", f.Path, f.Offset, f.Size, fi.Size())
		}
	}
	return nil
}

// at points the tree's folders at entry folder dir.
func (t *Tree) at(dir string) *Tree {
	t.dir = dir
	t.GitDir = filepath.Join(dir, gitDirName)
	t.blobs = filepath.Join(dir, blobsName)
	return t
}
