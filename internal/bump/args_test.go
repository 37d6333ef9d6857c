package bump

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"
)

func TestParseModulesTakesCanonicalVersionsOfValidPaths(t *testing.T) {
	mods, err := ParseModules([]string{"golang.org/x/net@v0.45.0", "google.golang.org/grpc@v1.79.3", "example.com/m@v0.0.0-20260101000000-abcdefabcdef"})
	require.NoError(t, err)
	assert.Equal(t, []module.Version{{Path: "golang.org/x/net", Version: "v0.45.0"}, {Path: "google.golang.org/grpc", Version: "v1.79.3"},
		{Path: "example.com/m", Version: "v0.0.0-20260101000000-abcdefabcdef"}}, mods)

	for _, bad := range []string{
		"golang.org/x/net",        // no version
		"golang.org/x/net@",       // empty version
		"@v1.0.0",                 // no module
		"golang.org/x/net@latest", // a query
		"golang.org/x/net@v0.45",  // not canonical
		"golang.org/x/net@master", // a branch
		"example.com/m/v2@v1.0.0", // the major version is the path's
		"example.com/m@v2.0.0",    // needs /v2
		"Example..com/m@v1.0.0",   // not a module path
		"stdlib@v1.26.9",          // Go is --toolchain's
		"go@v1.27.3",
	} {
		_, err := ParseModules([]string{bad})
		var usage *UsageError
		assert.True(t, errors.As(err, &usage), "%s: %v", bad, err)
	}
	_, err = ParseModules([]string{"golang.org/x/net@v0.45.0", "golang.org/x/net@v0.46.0"})
	assert.ErrorContains(t, err, "named twice")
}

func TestCheckRequestRefusesBeforeAnyWork(t *testing.T) {
	net := []module.Version{{Path: "golang.org/x/net", Version: "v0.45.0"}}
	ok := []Request{
		{Modules: net},
		{Modules: net, Fixes: []string{"GO-2025-3595", "GO-2026-12345"}},
		{FixCalled: true},
		{Toolchain: "go1.27.3"},
		{Toolchain: "go1.27.3", FixCalled: true},
	}
	for _, req := range ok {
		assert.NoError(t, CheckRequest(&req), "%+v", req)
	}
	bad := map[string]Request{
		"nothing to bump":         {},
		"GO-YYYY-NNNN":            {Modules: net, Fixes: []string{"CVE-2025-22870"}},
		"must be a Go release":    {Toolchain: "1.27.3"},
		"older than go1.21.0":     {Toolchain: "go1.20.14"},
		"only the recipe changes": {Toolchain: "go1.27.3", Fixes: []string{"GO-2025-3595"}},
	}
	for want, req := range bad {
		err := CheckRequest(&req)
		var usage *UsageError
		if assert.True(t, errors.As(err, &usage), "%s: %v", want, err) {
			assert.Contains(t, err.Error(), want)
			assert.Equal(t, 2, usage.CLIExitCode())
		}
	}
	assert.False(t, findingID.MatchString("GO-2025-359"), "the database's ids have four digits or more")
}
