package platform

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	ps, err := Parse([]string{"linux/amd64,linux/arm64", "linux/amd64"})
	require.NoError(t, err)
	require.Len(t, ps, 2)
	assert.Equal(t, "x86_64-unknown-linux-gnu", ps[0].RustTriple)
	assert.Equal(t, "aarch64-unknown-linux-gnu", ps[1].RustTriple)
	assert.Equal(t, "arm64", ps[1].GOARCH)

	_, err = Parse([]string{"linux/amd64,linux/s390x"})
	var up *UnsupportedError
	require.ErrorAs(t, err, &up)
	assert.Equal(t, "linux/s390x", up.Platform)
	assert.Contains(t, err.Error(), "linux/amd64 and/or linux/arm64")

	_, err = Parse([]string{" , "})
	require.True(t, errors.Is(err, ErrNone))
}

func TestParseNormalisesVariantsInOrder(t *testing.T) {
	got, err := Parse([]string{"linux/arm64/v8,linux/amd64", "linux/arm64"})
	require.NoError(t, err)
	assert.Equal(t, []string{"linux/arm64", "linux/amd64"}, Strings(got))

	_, err = Parse([]string{"linux/riscv64"})
	var up *UnsupportedError
	require.ErrorAs(t, err, &up)
}

func TestNativeCompilerOnItsOwnArch(t *testing.T) {
	a, err := lookup("linux/arm64", "amd64")
	require.NoError(t, err)
	assert.Equal(t, "aarch64-linux-gnu-gcc", a.CC)
	assert.Contains(t, a.CCPackages, "gcc-aarch64-linux-gnu")
	n, err := lookup("linux/arm64", "arm64")
	require.NoError(t, err)
	assert.Equal(t, "gcc", n.CC)
}

func TestELFMachine(t *testing.T) {
	m, ok := ELFMachine("arm64")
	assert.True(t, ok)
	assert.Equal(t, uint16(183), m)
	_, ok = ELFMachine("s390x")
	assert.False(t, ok)
}
