package source

import (
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// Creating a file locks its folder in the kernel, and on ext4 finding a
// free inode can take a while, so workers that create files in the same
// folder at once mostly wait for each other (spinning, which costs CPU
// too). writeTree therefore hands each folder's files to the workers in
// runs, a folder's subfolders to one worker, and starts on a folder as
// soon as it exists: the workers spread over the tree instead of
// crowding into one folder.

// folderRun is the most files of one folder one job creates: small enough
// that a large flat folder is still shared among the workers.
const folderRun = 64

// folder is one folder of the tree being written, with the indexes of its
// files in the file list.
type folder struct {
	rel     string // slash-separated, "" for the root
	files   []int
	subdirs []*folder
}

// folderTree arranges the file list into folders.
func folderTree(files []fileEntry) (root *folder, count int) {
	root = &folder{}
	byPath := map[string]*folder{"": root}
	var dirOf func(rel string) *folder
	dirOf = func(rel string) *folder {
		if f, ok := byPath[rel]; ok {
			return f
		}
		parent := ""
		if d := path.Dir(rel); d != "." {
			parent = d
		}
		f := &folder{rel: rel}
		p := dirOf(parent)
		p.subdirs = append(p.subdirs, f)
		byPath[rel] = f
		return f
	}
	for i, f := range files {
		d := ""
		if p := path.Dir(f.Path); p != "." {
			d = p
		}
		dir := dirOf(d)
		dir.files = append(dir.files, i)
	}
	return root, len(byPath)
}

// treeJob is one unit of work: creating a folder's subfolders (files nil)
// or a run of its files.
type treeJob struct {
	dir   *folder
	files []int
}

// writeTree creates every folder of files under dst (which exists) and
// calls file for each file, on copyWorkers goroutines. It returns the
// first error; after an error the remaining work is skipped.
func writeTree(dst string, files []fileEntry, file func(i int) error) error {
	root, folders := folderTree(files)
	jobs := make(chan treeJob, folders+len(files)/folderRun+folders)
	var (
		pending  atomic.Int64
		failed   atomic.Bool
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	queue := func(j treeJob) {
		pending.Add(1)
		jobs <- j
	}
	run := func(j treeJob) error {
		if j.files != nil {
			for _, i := range j.files {
				if err := file(i); err != nil {
					return err
				}
			}
			return nil
		}
		for _, sub := range j.dir.subdirs {
			if err := os.Mkdir(filepath.Join(dst, filepath.FromSlash(sub.rel)), 0o755); err != nil {
				return err
			}
			queue(treeJob{dir: sub})
		}
		for lo := 0; lo < len(j.dir.files); lo += folderRun {
			queue(treeJob{dir: j.dir, files: j.dir.files[lo:min(lo+folderRun, len(j.dir.files))]})
		}
		return nil
	}
	queue(treeJob{dir: root})
	for range copyWorkers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if !failed.Load() {
					if err := run(j); err != nil {
						errOnce.Do(func() { firstErr = err })
						failed.Store(true)
					}
				}
				if pending.Add(-1) == 0 {
					close(jobs)
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}
