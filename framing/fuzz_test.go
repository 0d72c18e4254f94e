package framing

import (
	"os"
	"path/filepath"
	"testing"
)

// seeds adds the recorded bodies matching pattern to f.
func seeds(f *testing.F, pattern string) {
	files, _ := filepath.Glob(filepath.Join(providers, pattern))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err == nil {
			f.Add(b)
		}
	}
}

// FuzzNDJSON checks the NDJSON parser's invariants on any body.
func FuzzNDJSON(f *testing.F) {
	seeds(f, "ollama/*.ndjson")
	f.Add([]byte("{\"a\":1}\r\n\n{"))
	f.Fuzz(func(t *testing.T, b []byte) { checkInvariants(t, NDJSON, b) })
}

// FuzzJSONArray checks the JSON array parser's invariants on any body.
func FuzzJSONArray(f *testing.F) {
	seeds(f, "gemini/*.body.json")
	f.Add([]byte(`[{"a":"]\"}"},[1]] x`))
	f.Fuzz(func(t *testing.T, b []byte) { checkInvariants(t, JSONArray, b) })
}

// FuzzEventStream checks the event-stream parser's invariants on any body,
// and that it reads what the AWS SDK's decoder reads, seeded with the
// recorded Bedrock bodies and the AWS vectors.
func FuzzEventStream(f *testing.F) {
	seeds(f, "bedrock/*.eventstream")
	seeds(f, "bedrock-eventstream-vectors/encoded/*/*")
	f.Fuzz(func(t *testing.T, b []byte) {
		checkInvariants(t, EventStream, b)
		checkAgainstSDK(t, b)
	})
}
