package inspect

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/seam-dev/seam/tape"
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

// jsonMember renders the JSON object member "key":"val", both escaped, as
// evidence of a field a payload carried.
func jsonMember(key, val string) string {
	b := tape.AppendJSONString(nil, key)
	b = append(b, ':')
	return string(tape.AppendJSONString(b, val))
}
