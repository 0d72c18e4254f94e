package inspect

import (
	"bytes"
	"encoding/json"
	"strings"
)

// marshalArgs renders parsed XML arguments as JSON with sorted keys.
func marshalArgs(args map[string]any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		return "{}"
	}
	return strings.TrimSuffix(b.String(), "\n")
}
