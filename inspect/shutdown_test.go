package inspect

import (
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestRecorderShutdownIsNotAFailure: a stream seam's own shutdown cut
// (recorder_shutdown on both sides) is reported once per side as what it
// is, at info, and nothing a stream cut short lacks (its terminal event,
// its finish reason, the rest of its tool call) is held against it; the
// same stream cut by the client (client_aborted) still warns.
func TestRecorderShutdownIsNotAFailure(t *testing.T) {
	cut := cc(chatRole) + cc(`{"content":"Hel"}`) + cc(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"pa"}}]}`)
	byID := func(fs []Finding) map[string]Severity {
		m := map[string]Severity{}
		for _, f := range fs {
			m[f.ID] = max(m[f.ID], f.Severity)
		}
		return m
	}
	shut := byID(exInput{up: cut, client: cut, outcome: tape.RecorderShutdown}.findings(t))
	for id, sev := range shut {
		if sev >= Warn {
			t.Errorf("recorder_shutdown: %s at %s", id, sev)
		}
	}
	if shut["stream.recorder-shutdown"] != Info {
		t.Errorf("recorder_shutdown: findings %v, want stream.recorder-shutdown at info", shut)
	}
	aborted := byID(exInput{up: cut, client: cut, outcome: tape.ClientAborted}.findings(t))
	if aborted["stream.outcome"] != Warn || aborted["stream.no-terminal"] != Warn {
		t.Errorf("client_aborted: findings %v, want stream.outcome and stream.no-terminal warnings", aborted)
	}
}
