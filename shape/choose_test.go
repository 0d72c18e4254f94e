package shape

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestChoose: --profile names a built-in profile or a profile file,
// without it the base engine (a capture's) is kept, or the default
// profile; --set switches apply on top of whichever it is.
func TestChoose(t *testing.T) {
	file := filepath.Join(t.TempDir(), "fix.profile")
	if err := os.WriteFile(file, []byte("profile = obsidian-xml\nholdback = off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := &tape.Engine{Profile: "obsidian-xml", Switches: map[string]string{"holdback": "off"}}
	for _, c := range []struct {
		name    string
		profile string
		set     map[string]string
		base    *tape.Engine
		want    string // profile
		hold    string // holdback
	}{
		{"default", "", nil, nil, DefaultProfile, "off"},
		{"built-in", "obsidian-xml", nil, nil, "obsidian-xml", "on"},
		{"file", file, nil, nil, "obsidian-xml", "off"},
		{"base", "", nil, base, "obsidian-xml", "off"},
		{"set on base", "", map[string]string{"holdback": "on"}, base, "obsidian-xml", "on"},
		{"profile over base", "responses", nil, base, "responses", "off"},
	} {
		eng, err := Choose(c.profile, c.set, c.base)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if eng.Profile != c.want || eng.Switches["holdback"] != c.hold {
			t.Errorf("%s: profile %s holdback %s, want %s %s", c.name, eng.Profile, eng.Switches["holdback"], c.want, c.hold)
		}
	}
	if base.Switches["holdback"] != "off" {
		t.Error("Choose changed the base engine's switches")
	}
	if _, err := Choose(filepath.Join(t.TempDir(), "none.profile"), nil, nil); err == nil {
		t.Error("a profile file that does not exist was accepted")
	}
}
