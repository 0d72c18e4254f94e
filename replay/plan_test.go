package replay

import (
	"errors"
	"strings"
	"testing"
)

// TestPlanServe: each mode takes the captures, -o, --upstream and
// --forward it can use and refuses the others with a reason and an
// example; --mode once records a capture that does not exist and replays
// one that does.
func TestPlanServe(t *testing.T) {
	exists := func(path string) (bool, error) { return path == "old.ndjson", nil }
	for _, tc := range []struct {
		name    string
		req     ServeRequest
		refused string // in the PlanError, or "" when planned
		want    ServePlan
		says    string // in Describe("https://up", "new.ndjson")
	}{
		{"none", ServeRequest{Captures: []string{"a"}}, "", ServePlan{Mode: ModeNone, Replay: []string{"a"}}, "strict replay"},
		{"none without capture", ServeRequest{}, "no capture given", ServePlan{}, ""},
		{"none with upstream", ServeRequest{Captures: []string{"a"}, Upstream: "https://up"}, "never forwards", ServePlan{}, ""},
		{"once new", ServeRequest{Mode: ModeOnce, Captures: []string{"new.ndjson"}, Upstream: "https://up"}, "",
			ServePlan{Mode: ModeOnce, Forwards: true, Upstream: "https://up", Record: "new.ndjson", RecordOn: true}, "new.ndjson does not exist yet: forwarding every request to https://up"},
		{"once existing", ServeRequest{Mode: ModeOnce, Captures: []string{"old.ndjson"}}, "", ServePlan{Mode: ModeOnce, Replay: []string{"old.ndjson"}}, "the capture exists"},
		{"once new without upstream", ServeRequest{Mode: ModeOnce, Captures: []string{"new.ndjson"}}, "with a capture that does not exist yet needs --upstream", ServePlan{}, ""},
		{"new episodes forward", ServeRequest{Mode: ModeNewEpisodes, Captures: []string{"a"}, Forward: true, Output: "d/"}, "",
			ServePlan{Mode: ModeNewEpisodes, Replay: []string{"a"}, Forwards: true, Record: "d/", RecordOn: true}, "replaying what matches"},
		{"forward with upstream", ServeRequest{Mode: ModeAll, Forward: true, Upstream: "https://up"}, "--upstream does not apply", ServePlan{}, ""},
		{"all with capture", ServeRequest{Mode: ModeAll, Captures: []string{"a"}, Upstream: "https://up"}, "replays nothing", ServePlan{}, ""},
		{"passthrough with -o", ServeRequest{Mode: ModePassthrough, Upstream: "https://up", Output: "x"}, "records nothing", ServePlan{}, ""},
		{"passthrough", ServeRequest{Mode: ModePassthrough, Upstream: "https://up"}, "", ServePlan{Mode: ModePassthrough, Forwards: true, Upstream: "https://up"}, "recording nothing"},
	} {
		tc.req.Exists = exists
		p, err := PlanServe(tc.req)
		var pe *PlanError
		switch {
		case tc.refused != "":
			if !errors.As(err, &pe) || !strings.Contains(pe.Msg, tc.refused) || !strings.HasPrefix(pe.Example, "seam serve") {
				t.Errorf("%s: %v, want a PlanError saying %q with an example", tc.name, err, tc.refused)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		default:
			if p.Mode != tc.want.Mode || strings.Join(p.Replay, ",") != strings.Join(tc.want.Replay, ",") || p.Forwards != tc.want.Forwards ||
				p.Upstream != tc.want.Upstream || p.Record != tc.want.Record || p.RecordOn != tc.want.RecordOn {
				t.Errorf("%s: plan %+v, want %+v", tc.name, *p, tc.want)
			}
			if d := p.Describe("https://up", "new.ndjson"); !strings.Contains(d, tc.says) {
				t.Errorf("%s: Describe %q, want %q in it", tc.name, d, tc.says)
			}
		}
	}
}
