package progress

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseModeTakesBuildxsModes(t *testing.T) {
	for _, s := range []string{"", "auto", "plain", "tty", "quiet", "rawjson"} {
		_, err := ParseMode(s)
		assert.NoError(t, err, s)
	}
	var me *ModeError
	_, err := ParseMode("loud")
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "loud", me.Value)
	assert.EqualError(t, err, `--progress "loud": use auto, plain, tty, quiet, rawjson`)
}

func TestChoiceFollowsBuildxsPrecedence(t *testing.T) {
	for _, c := range []struct {
		name   string
		choice Choice
		want   Mode
	}{
		{"default", Choice{Flag: "auto"}, Auto},
		{"env when the flag is not given", Choice{Flag: "auto", Env: "plain"}, Plain},
		{"env even over a non-auto default", Choice{Flag: "plain", Env: "rawjson"}, RawJSON},
		{"an explicit flag wins over env", Choice{Flag: "tty", FlagSet: true, Env: "plain"}, Terminal},
		{"an explicit auto wins over env too", Choice{Flag: "auto", FlagSet: true, Env: "plain"}, Auto},
		{"-q wins over env", Choice{Quiet: true, Flag: "auto", Env: "plain"}, Quiet},
		{"-q agrees with --progress quiet", Choice{Quiet: true, Flag: "quiet", FlagSet: true}, Quiet},
	} {
		got, err := c.choice.Mode()
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, got, c.name)
	}
}

func TestChoiceNamesWhereABadModeCameFrom(t *testing.T) {
	_, err := Choice{Flag: "auto", Env: "fancy"}.Mode()
	var me *ModeError
	require.ErrorAs(t, err, &me)
	assert.EqualError(t, err, `BUILDKIT_PROGRESS "fancy": use auto, plain, tty, quiet, rawjson`)

	// A bad env does not matter when the flag decides.
	m, err := Choice{Flag: "plain", FlagSet: true, Env: "fancy"}.Mode()
	require.NoError(t, err)
	assert.Equal(t, Plain, m)

	_, err = Choice{Flag: "loud", FlagSet: true}.Mode()
	assert.EqualError(t, err, `--progress "loud": use auto, plain, tty, quiet, rawjson`)

	var ce *ConflictError
	_, err = Choice{Quiet: true, Flag: "plain", FlagSet: true}.Mode()
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "plain", ce.Progress)
}

func TestAutoIsLiveOnlyOnATerminalThatIsNotDumb(t *testing.T) {
	assert.Equal(t, Terminal, resolveAuto(true, "xterm-256color", false))
	assert.Equal(t, Terminal, resolveAuto(true, "", false))
	assert.Equal(t, Plain, resolveAuto(true, "dumb", false))
	assert.Equal(t, Plain, resolveAuto(false, "xterm", false))
	assert.Equal(t, Plain, resolveAuto(true, "xterm", true), "NO_COLOR gets plain lines")
}

func TestResolveKeepsAForcedMode(t *testing.T) {
	for _, m := range []Mode{Terminal, Plain, Quiet, RawJSON} {
		assert.Equal(t, m, Resolve(m, nil), m) // nil: not a terminal
	}
	assert.Equal(t, Plain, Resolve(Auto, nil))
}
