package inspect

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestEvidenceIsEscapedJSON: evidence that quotes a payload member is valid
// JSON whatever the member's value holds.
func TestEvidenceIsEscapedJSON(t *testing.T) {
	t.Parallel()
	role := cc(`{"role":"a\"b\\c\n"}`)
	call := cc(tool(0, "call_\"1", "re\"ad", "{}"))
	for _, body := range []string{
		role + role + ccf(`{}`, "stop") + done,
		call + call + ccf(`{}`, "tool_calls") + done,
	} {
		fs := exInput{client: body}.findings(t)
		n := 0
		for _, f := range fs {
			if f.ID == "chat.repeated-fields" {
				n++
				if !gjson.Valid("{" + f.Evidence + "}") {
					t.Errorf("evidence is not a JSON member: %s", f.Evidence)
				}
			}
		}
		if n == 0 {
			t.Errorf("no chat.repeated-fields; findings: %s", findingIDs(fs))
		}
	}
}
