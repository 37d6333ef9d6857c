package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostileCase is what testdata/hostile/cases.json expects of a patch.
type hostileCase struct {
	Exit int      `json:"exit"`
	Want []string `json:"want"`
}

func loadCases(t *testing.T, path string) map[string]hostileCase {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var cases map[string]hostileCase
	require.NoError(t, json.Unmarshal(data, &cases))
	return cases
}
