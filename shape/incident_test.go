package shape

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/sse"
)

func incidentBody(t testing.TB) []byte {
	return readFile(t, filepath.Join(incidentDir, "codex-use-tool.upstream.sse"))
}

func TestIncident(t *testing.T) {
	t.Parallel()
	body := incidentBody(t)
	upstream := strings.Join(incidentDeltas(t), "")
	open := strings.Index(upstream, "<use_tool>")
	block := upstream[open:]
	preamble := upstream[:open]
	for _, tc := range []struct {
		name     string
		holdback string
	}{{"pre-fix", "off"}, {"fixed", "on"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := mustEngine(t, ProfileObsidianXML, map[string]string{SwHoldback: tc.holdback})
			frames := run(e, sse.SplitEvents(body))
			got := assemble(t, join(frames)).text[0]
			opens := strings.Count(got, "<use_tool>")
			if tc.holdback == "off" {
				if !strings.Contains(got, "</use_tool<use_tool>") {
					t.Errorf("assembled text lacks </use_tool<use_tool>:\n%s", got)
				}
				if opens != 2 {
					t.Errorf("got %d <use_tool> openers, want 2 (leaked copy + re-emitted block)", opens)
				}
				// The leaked copy is the block without its final '>', then the block again.
				want := preamble + block[:len(block)-1] + block
				if got != want {
					t.Errorf("assembled text:\n%q\nwant\n%q", got, want)
				}
				return
			}
			if got != upstream {
				t.Errorf("assembled text:\n%q\nwant the upstream text\n%q", got, upstream)
			}
			if opens != 1 || strings.Count(got, "</use_tool>") != 1 || strings.Contains(got, "</use_tool<") {
				t.Errorf("want exactly one well-formed block, got:\n%s", got)
			}
			// The block arrives as one delta.
			n := 0
			for _, f := range frames {
				if strings.Contains(string(f), `<use_tool>`) {
					n++
					if !strings.Contains(string(f), `</use_tool>`) {
						t.Errorf("block frame is not the whole block: %s", f)
					}
				}
			}
			if n != 1 {
				t.Errorf("%d frames carry <use_tool>, want 1", n)
			}
		})
	}
}

// TestIncidentOverlapDedupe reproduces bug class C on the real token stream:
// the historical overlap dedupe eats legitimate characters at delta
// boundaries (docs/GLOSSARY.md class C: timeanddate → timeandate, tennessee →
// tenesee).
func TestIncidentOverlapDedupe(t *testing.T) {
	t.Parallel()
	body := incidentBody(t)
	for _, dd := range []string{"off", "on"} {
		e := mustEngine(t, ProfileObsidianXML, map[string]string{SwOverlapDedupe: dd})
		got := assemble(t, join(run(e, sse.SplitEvents(body)))).text[0]
		if dd == "off" {
			if want := strings.Join(incidentDeltas(t), ""); got != want {
				t.Errorf("overlap-dedupe=off: text is not the upstream text:\n%q\nwant\n%q", got, want)
			}
			continue
		}
		lost := !strings.Contains(got, "timeanddate") && strings.Contains(got, "timeandate") && strings.Contains(got, "tenesee")
		if !lost {
			t.Errorf("overlap-dedupe=on: characters not lost; text:\n%s", got)
		}
	}
}

func TestBugClasses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, fixture, profile string
		set                    map[string]string
		check                  func(t *testing.T, a assembled)
	}{
		{"C overlap dedupe on", "class-c-overlap", ProfileObsidianXML, map[string]string{SwOverlapDedupe: "on"}, func(t *testing.T, a assembled) {
			if want := "Forecast from www.timeandate.com for Tenessee."; a.text[0] != want {
				t.Errorf("got %q, want %q", a.text[0], want)
			}
		}},
		{"C overlap dedupe off", "class-c-overlap", ProfileObsidianXML, nil, func(t *testing.T, a assembled) {
			if want := "Forecast from www.timeanddate.com for Tennessee."; a.text[0] != want {
				t.Errorf("got %q, want %q", a.text[0], want)
			}
		}},
		{"G tail kept", "class-g-tail", ProfileObsidianXML, map[string]string{SwSuppressTail: "off"}, func(t *testing.T, a assembled) {
			if !strings.HasSuffix(a.text[0], "</use_tool>\n\nCalling getFileTree now…") {
				t.Errorf("tail missing: %q", a.text[0])
			}
		}},
		{"G tail suppressed", "class-g-tail", ProfileObsidianXML, nil, func(t *testing.T, a assembled) {
			if want := "I'll list your vault.\n\n<use_tool>\n<name>getFileTree</name>\n</use_tool>"; a.text[0] != want {
				t.Errorf("got %q, want %q", a.text[0], want)
			}
		}},
		{"P void tool args tag", "class-p-void-tool", ProfileObsidianXML, map[string]string{SwVoidArgsTag: "on"}, func(t *testing.T, a assembled) {
			if want := "<use_tool>\n<name>getFileTree</name>\n<args>{}</args>\n</use_tool>"; a.text[0] != want {
				t.Errorf("got %q, want %q", a.text[0], want)
			}
		}},
		{"P void tool no children", "class-p-void-tool", ProfileObsidianXML, nil, func(t *testing.T, a assembled) {
			if want := "<use_tool>\n<name>getFileTree</name>\n</use_tool>"; a.text[0] != want {
				t.Errorf("got %q, want %q", a.text[0], want)
			}
			if len(a.tools) != 0 {
				t.Errorf("structured calls still sent: %v", a.tools)
			}
		}},
		{"F cumulative args", "class-f-cumulative-args", ProfilePassthrough, map[string]string{SwIncrementalArgs: "off"}, func(t *testing.T, a assembled) {
			want := `readNote({"notePath"{"notePath": "Weather{"notePath": "Weather.md"})`
			if len(a.tools) != 1 || a.tools[0] != want {
				t.Errorf("got %q, want %q", a.tools, want)
			}
		}},
		{"F incremental args", "class-f-cumulative-args", ProfilePassthrough, map[string]string{SwIncrementalArgs: "on"}, func(t *testing.T, a assembled) {
			want := `readNote({"notePath": "Weather.md"})`
			if len(a.tools) != 1 || a.tools[0] != want {
				t.Errorf("got %q, want %q", a.tools, want)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := readFile(t, filepath.Join(incidentDir, tc.fixture+".upstream.sse"))
			e := mustEngine(t, tc.profile, tc.set)
			tc.check(t, assemble(t, join(run(e, sse.SplitEvents(body)))))
		})
	}
}
