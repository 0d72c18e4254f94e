package textreport

import (
	"fmt"
	"io"
	"strings"

	"github.com/seam-dev/seam/shape"
)

// WriteSwitches documents the shaping engine's profiles and switches
// (seam help switches): what each switch does and its default per profile.
func WriteSwitches(w io.Writer) {
	profiles := shape.Profiles()
	fmt.Fprintf(w, `The shaping engine runs between the upstream and the client. A profile sets
every switch; --set switch=value overrides one. A capture's header records the
profile and every switch value, so a replay rebuilds the same engine.

A profile file is key = value lines (# comments): "profile = obsidian-xml"
to start from a built-in profile, then one "switch = value" per line.

Switches (defaults per profile: %s):
`, strings.Join(profiles, " / "))
	width := 0
	for _, s := range shape.Switches() {
		width = max(width, len(s.Name))
	}
	for _, s := range shape.Switches() {
		var defs []string
		for _, p := range profiles {
			defs = append(defs, s.Defaults[p])
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, s.Name, strings.Join(defs, " / "))
		fmt.Fprint(w, Wrap(s.Doc, 78, "      "))
	}
}
