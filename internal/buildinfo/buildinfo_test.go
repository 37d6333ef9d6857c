package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFromBuildInfoReadsTheVCSStamp(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/epp-build/epp-build", Version: "(devel)"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-30T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	info := fromBuildInfo(bi, "")
	assert.Equal(t, "(devel)", info.Version)
	assert.Equal(t, "go1.26.8", info.GoVersion)
	assert.Equal(t, "0123456789abcdef0123456789abcdef01234567", info.Revision)
	assert.True(t, info.Modified)
	assert.Contains(t, info.String(), "revision 0123456789abcdef0123456789abcdef01234567 (2026-11-30T10:00:00Z) with uncommitted changes")
}

func TestLinkedVersionWinsOverTheModuleVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}}
	assert.Equal(t, "v1.0.0", fromBuildInfo(bi, "v1.0.0").Version)
	assert.Equal(t, "v0.3.0", fromBuildInfo(bi, "").Version)
	assert.NotContains(t, fromBuildInfo(bi, "").String(), "revision unknown")
}

func TestUnstampedBuildsGiveNoFalseAdvice(t *testing.T) {
	installed := fromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-test"}}, "")
	assert.Equal(t, "v0.0.0-test", installed.Version)
	assert.NotContains(t, installed.String(), "revision", "go install module@version never stamps a revision: the version names the source")
	assert.NotContains(t, installed.String(), "go install")

	goRun := fromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "")
	assert.Contains(t, goRun.String(), "revision unknown (built without VCS information")
	assert.NotContains(t, goRun.String(), "build with go build")
}
