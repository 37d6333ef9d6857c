// Package outfmt is the one set of output formats every command's -o
// takes: text for a terminal, json for programs, markdown for a pull
// request description. "table" is kept as another name for text.
package outfmt

import (
	"fmt"
	"strings"
)

// Format is an -o value. It is a pflag.Value, so a wrong value is a usage
// error when the flags are parsed, before any work.
type Format string

const (
	Text     Format = "text"
	JSON     Format = "json"
	Markdown Format = "markdown"
)

// Names lists the values -o takes, for help and completion.
var Names = []string{string(Text), string(JSON), string(Markdown)}

// Parse reads an -o value.
func Parse(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "text", "table":
		return Text, nil
	case "json":
		return JSON, nil
	case "markdown", "md":
		return Markdown, nil
	}
	return "", fmt.Errorf("output format %q: use %s (table is text)", s, strings.Join(Names, ", "))
}

func (f *Format) String() string { return string(*f) }

// Set parses s into f.
func (f *Format) Set(s string) error {
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// Type names the value in flag help.
func (f *Format) Type() string { return "format" }
