package workerid

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

func checkNoParameters(parameters json.RawMessage) error {
	trimmed := bytes.TrimSpace(parameters)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return fmt.Errorf("%s parameters: want a JSON object: %w", Type, err)
	}
	for key := range fields {
		return fmt.Errorf("%s parameters: unknown parameter %q (this plugin takes none)", Type, key)
	}
	return nil
}

func formatID(id uint64) string { return strconv.FormatUint(id, 10) }
