package shape

import (
	"strings"
	"testing"
)

func TestParseProfile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		want      map[string]string // switches checked (subset)
		profile   string
		err       string
	}{
		{"base and overrides", "# pre-fix engine\nprofile = obsidian-xml\n\nholdback = off\nstop-after-tools = 2\n",
			map[string]string{SwHoldback: "off", SwStopAfterTools: "2", SwXMLTools: "on"}, ProfileObsidianXML, ""},
		{"no base is passthrough", "overlap-dedupe = yes\n", map[string]string{SwOverlapDedupe: "on", SwXMLTools: "off"}, ProfilePassthrough, ""},
		{"profile anywhere", "holdback=off\nprofile=obsidian-xml\n", map[string]string{SwHoldback: "off", SwToolBlock: "on"}, ProfileObsidianXML, ""},
		{"unknown switch", "profile = obsidian-xml\nholdbak = on\n", nil, "", `my.profile:2: unknown switch "holdbak" (known: xml-tools,`},
		{"bad value", "\n\nholdback = sometimes\n", nil, "", "my.profile:3: switch holdback: bad value"},
		{"no equals", "holdback\n", nil, "", "my.profile:1: want key = value"},
		{"empty value", "holdback =\n", nil, "", "my.profile:1: want key = value"},
		{"unknown profile", "profile = obsidian\n", nil, "", `my.profile:1: unknown profile "obsidian" (known: passthrough, obsidian-xml, responses)`},
		{"duplicate", "holdback = on\nholdback = off\n", nil, "", "my.profile:2: holdback already set on line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := ParseProfile(strings.NewReader(tc.src), "my.profile")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Profile != tc.profile || len(e.Switches) != len(Switches()) {
				t.Errorf("got profile %q with %d switches", e.Profile, len(e.Switches))
			}
			for k, v := range tc.want {
				if e.Switches[k] != v {
					t.Errorf("%s = %q, want %q", k, e.Switches[k], v)
				}
			}
		})
	}
}

func TestResolveIsComplete(t *testing.T) {
	t.Parallel()
	for _, p := range Profiles() {
		e, err := Resolve(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range Switches() {
			if e.Switches[s.Name] != s.Defaults[p] {
				t.Errorf("%s: %s = %q, want default %q", p, s.Name, e.Switches[s.Name], s.Defaults[p])
			}
			if s.Doc == "" || (s.Kind != "bool" && s.Kind != "int") {
				t.Errorf("%s: missing doc or kind", s.Name)
			}
		}
	}
	// A partial map takes the profile's defaults for the rest, and a full map
	// round-trips (what a capture header holds rebuilds the same engine).
	e, err := Resolve(ProfileObsidianXML, map[string]string{SwHoldback: "false"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Resolve(e.Profile, e.Switches)
	if err != nil || len(again.Switches) != len(e.Switches) || again.Switches[SwHoldback] != "off" || again.Switches[SwToolBlock] != "on" {
		t.Errorf("round trip: %v %v", again, err)
	}
}

// TestPassthroughOnlyWhenIdentity: the passthrough profile with a switch
// flipped is no longer the identity engine.
func TestPassthroughOnlyWhenIdentity(t *testing.T) {
	t.Parallel()
	if _, ok := mustEngine(t, ProfilePassthrough, nil).(Passthrough); !ok {
		t.Error("passthrough profile did not give Passthrough")
	}
	if _, ok := mustEngine(t, ProfilePassthrough, map[string]string{SwHoldback: "on"}).(Passthrough); ok {
		t.Error("passthrough with holdback=on gave Passthrough")
	}
}

func TestParseSet(t *testing.T) {
	t.Parallel()
	m, err := ParseSet([]string{"holdback=off", "stop-after-tools = 3", "overlap-dedupe=TRUE"})
	if err != nil {
		t.Fatal(err)
	}
	if m[SwHoldback] != "off" || m[SwStopAfterTools] != "3" || m[SwOverlapDedupe] != "on" {
		t.Errorf("got %v", m)
	}
	for _, bad := range []string{"holdback", "=on", "nope=on", "holdback=2"} {
		if _, err := ParseSet([]string{bad}); err == nil {
			t.Errorf("ParseSet(%q) accepted", bad)
		}
	}
}
