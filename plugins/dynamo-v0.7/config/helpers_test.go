package config_test

import (
	"strconv"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/bbrhints"
)

func itoa(i int) string { return strconv.Itoa(i) }

func logrDiscard() logr.Logger { return logr.Discard() }

func firstToken(t *testing.T, headers map[string]string) uint32 {
	t.Helper()
	tokens, err := bbrhints.DecodeTokenData(headers[bbrhints.InjectTokenDataHeader])
	require.NoError(t, err)
	require.Len(t, tokens, 1)
	return tokens[0]
}
