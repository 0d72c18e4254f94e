package shape

import (
	"path/filepath"
	"testing"

	"github.com/seam-dev/seam/internal/goldenfile"
	"github.com/seam-dev/seam/sse"
)

// TestClientGoldens pins the exact client bytes (and so the encoders' byte
// stability) for the incident and bug-class fixtures. Captures recorded
// through seam depend on them; SEAM_GEN=1 rewrites the goldens.
func TestClientGoldens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		golden, fixture, profile string
		set                      map[string]string
	}{
		{"incident-holdback-off", "codex-use-tool", ProfileObsidianXML, map[string]string{SwHoldback: "off"}},
		{"incident-holdback-on", "codex-use-tool", ProfileObsidianXML, nil},
		{"incident-responses", "codex-use-tool", ProfileObsidianXML, map[string]string{SwResponsesAdapter: "on"}},
		{"class-c-overlap-dedupe", "class-c-overlap", ProfileObsidianXML, map[string]string{SwOverlapDedupe: "on"}},
		{"class-g-tail-kept", "class-g-tail", ProfileObsidianXML, map[string]string{SwSuppressTail: "off"}},
		{"class-p-void-args", "class-p-void-tool", ProfileObsidianXML, map[string]string{SwVoidArgsTag: "on"}},
		{"class-f-cumulative-args", "class-f-cumulative-args", ProfilePassthrough, map[string]string{SwIncrementalArgs: "off"}},
	} {
		body := readFile(t, filepath.Join(incidentDir, tc.fixture+".upstream.sse"))
		got := join(run(mustEngine(t, tc.profile, tc.set), sse.SplitEvents(body)))
		path := filepath.Join("testdata", "golden", tc.golden+".client.sse")
		goldenfile.Check(t, path, got, "SEAM_GEN=1 go test ./shape -run TestClientGoldens")
	}
}
