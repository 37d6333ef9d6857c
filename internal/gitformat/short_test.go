package gitformat

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShortIsTwelveCharacters(t *testing.T) {
	assert.Equal(t, "0123456789ab", Short("0123456789abcdef0123456789abcdef01234567"))
	assert.Equal(t, "v1.2.3", Short("v1.2.3"), "a short name is kept whole")
	assert.Equal(t, "", Short(""))
}
