// Package envread reads environment values the way Dynamo's Go EPP does,
// naming each value it cannot read instead of dropping it silently.
package envread

import (
	"fmt"
	"strconv"
	"strings"
)

// Bool reads true/1/yes/on and false/0/no/off in any case; unset or empty
// gives def. Any other value also gives def (as in Dynamo), with a warning
// naming it.
func Bool(getenv func(string) string, key string, def bool) (bool, string) {
	v := getenv(key)
	switch strings.ToLower(v) {
	case "":
		return def, ""
	case "true", "1", "yes", "on":
		return true, ""
	case "false", "0", "no", "off":
		return false, ""
	}
	return def, fmt.Sprintf("%s=%q is not a boolean (true/false, 1/0, yes/no, on/off): using %t", key, v, def)
}

// Float reads a number; unset or empty gives def, and so does a value that
// is not a number (as in Dynamo), with a warning naming it.
func Float(getenv func(string) string, key string, def float64) (float64, string) {
	v := strings.TrimSpace(getenv(key))
	if v == "" {
		return def, ""
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return def, fmt.Sprintf("%s=%q is not a number: using %g", key, v, def)
	}
	return f, ""
}

// String gives def when the value is unset or empty.
func String(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}
