package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// setupAction is setup-epp-build/action.yml, the parts a run uses.
type setupAction struct {
	Inputs map[string]struct {
		Required bool   `yaml:"required"`
		Default  string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID    string            `yaml:"id"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			Run   string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

var setupActionDir = filepath.Join("..", "..", "setup-epp-build")

func readSetupAction(t *testing.T) setupAction {
	t.Helper()
	var a setupAction
	data, err := os.ReadFile(filepath.Join(setupActionDir, "action.yml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &a))
	require.Equal(t, "composite", a.Runs.Using)
	require.Len(t, a.Runs.Steps, 1)
	return a
}
