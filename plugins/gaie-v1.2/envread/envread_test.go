package envread

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestBoolKeepsTheDefaultForUnsetAndInvalid(t *testing.T) {
	for v, want := range map[string]bool{"": true, "1": true, "YES": true, "on": true, "off": false, "0": false, "False": false, "no": false} {
		got, warning := Bool(env(map[string]string{"K": v}), "K", true)
		assert.Equal(t, want, got, v)
		assert.Empty(t, warning, v)
	}
	got, warning := Bool(env(map[string]string{"K": "2"}), "K", true)
	assert.True(t, got)
	assert.Contains(t, warning, `K="2"`)
}

func TestFloat(t *testing.T) {
	got, warning := Float(env(map[string]string{"K": " 0.25 "}), "K", -1)
	assert.Equal(t, 0.25, got)
	assert.Empty(t, warning)
	got, warning = Float(env(nil), "K", -1)
	assert.Equal(t, -1.0, got)
	assert.Empty(t, warning)
	got, warning = Float(env(map[string]string{"K": "heavy"}), "K", -1)
	assert.Equal(t, -1.0, got)
	assert.NotEmpty(t, warning)
}

func TestString(t *testing.T) {
	assert.Equal(t, "d", String(env(nil), "K", "d"))
	assert.Equal(t, "v", String(env(map[string]string{"K": "v"}), "K", "d"))
}
