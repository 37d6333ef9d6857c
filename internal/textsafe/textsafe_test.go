package textsafe

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain subject":                 "plain subject",
		"tab\tkept":                     "tab\tkept",
		"\x1b[31mred\x1b[0m":            `\x1b[31mred\x1b[0m`,
		"fake\rreal":                    `fake\rreal`,
		"two\nlines":                    `two\nlines`,
		"bell\a del\x7f":                `bell\x07 del\x7f`,
		"c1 \u009b31m":                  `c1 \u009b31m`,
		"bidi \u202eevil":               `bidi \u202eevil`,
		"bad utf-8 \xff":                `bad utf-8 \xff`,
		"Ünïcödé 日本":                    "Ünïcödé 日本",
		"file name\x1b]0;title\x07.txt": `file name\x1b]0;title\x07.txt`,
	} {
		assert.Equal(t, want, Escape(in), "%q", in)
	}
}

func TestEscapeLinesKeepsNewlines(t *testing.T) {
	assert.Equal(t, "body\nwith \\x1b[2J\\r\n", EscapeLines("body\nwith \x1b[2J\r\n"))
}
