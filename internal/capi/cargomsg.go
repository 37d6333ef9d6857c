package capi

import (
	"bufio"
	"encoding/json"
	"io"
	"slices"
)

// cargoMessage is the part of cargo's --message-format=json records the
// stage needs: which package built the static library, and where that
// package's build script wrote its output (OUT_DIR).
type cargoMessage struct {
	Reason    string `json:"reason"`
	PackageID string `json:"package_id"`
	OutDir    string `json:"out_dir"`
	Target    struct {
		Kind []string `json:"kind"`
	} `json:"target"`
}

// libraryOutDirs reads cargo's JSON messages and returns the build-script
// output folders of the packages that produced a staticlib. A target dir
// shared by several checkouts (other pins, other --capi-src folders) holds
// one output folder per checkout; only the messages say which is this
// build's, fresh or not.
func libraryOutDirs(r io.Reader) ([]string, error) {
	var libs []string
	outDirs := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var m cargoMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m.Reason {
		case "compiler-artifact":
			if slices.Contains(m.Target.Kind, "staticlib") {
				libs = append(libs, m.PackageID)
			}
		case "build-script-executed":
			outDirs[m.PackageID] = m.OutDir
		}
	}
	var out []string
	for _, id := range libs {
		if dir := outDirs[id]; dir != "" && !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	return out, sc.Err()
}
