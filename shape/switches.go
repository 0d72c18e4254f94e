package shape

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/tape"
)

// Switch names. Each transform of the engine is one named switch.
const (
	SwXMLTools         = "xml-tools"
	SwToolBlock        = "tool-block"
	SwHoldback         = "holdback"
	SwSuppressTail     = "suppress-tail"
	SwStopAfterTools   = "stop-after-tools"
	SwResponsesAdapter = "responses-adapter"
	SwIncrementalArgs  = "incremental-args"
	SwOverlapDedupe    = "overlap-dedupe"
	SwVoidArgsTag      = "void-args-tag"
)

// The built-in profile names.
const (
	ProfilePassthrough = DefaultProfile
	ProfileObsidianXML = "obsidian-xml"
	ProfileResponses   = "responses"
	// ProfileExternal marks a capture whose client side was shaped by a
	// proxy under test (a sandwich recording), not by seam's engine. It
	// cannot be built; replaying such a capture needs a profile given.
	ProfileExternal = "external"
)

// ErrExternal is returned for the external profile: the engine that shaped
// the client side was not seam's, so it cannot be rebuilt.
var ErrExternal = errors.New(`the client side was shaped by an external proxy (a sandwich recording), not by seam's engine; give a profile to replay the upstream side through seam's engine instead, e.g. --profile obsidian-xml`)

// SwitchInfo describes one engine switch, for --help and the TUI.
type SwitchInfo struct {
	Name string
	// Kind is "bool" (values on/off) or "int" (a count, 0 meaning off).
	Kind string
	// Defaults holds the switch's value in each built-in profile.
	Defaults map[string]string
	// Doc is a one-line description.
	Doc string
}

type switchDef struct {
	name, kind, doc string
	// defaults for passthrough, obsidian-xml, responses
	pt, ox, rs string
}

// switchDefs is the single table of switches, in display order.
func switchDefs() [9]switchDef {
	return [...]switchDef{
		{SwXMLTools, "bool", "render structured tool calls as Obsidian <use_tool> XML text, one child tag per argument", "off", "on", "off"},
		{SwToolBlock, "bool", "forward each textual <use_tool>…</use_tool> block as one delta", "off", "on", "off"},
		{SwHoldback, "bool", "hold back a trailing partial <use_tool / </use_tool until decided (off reproduces </use_tool<use_tool>)", "off", "on", "off"},
		{SwSuppressTail, "bool", "drop narrative after the last complete <use_tool> block", "off", "on", "off"},
		{SwStopAfterTools, "int", "end the turn after N tool blocks (0 = never)", "0", "0", "0"},
		{SwResponsesAdapter, "bool", "encode a Chat Completions upstream as Responses events for the client", "off", "off", "on"},
		{SwIncrementalArgs, "bool", "send structured tool arguments as increments (off: each delta repeats all arguments so far, a historical proxy bug that corrupts them)", "on", "on", "on"},
		{SwOverlapDedupe, "bool", "historical proxy bug: drop text that repeats the end of the text so far, eating real letters (timeanddate → timeandate)", "off", "off", "off"},
		{SwVoidArgsTag, "bool", "historical proxy bug: render a parameter-less tool call as <args>{}</args>, which Obsidian reads as a parameter", "off", "off", "off"},
	}
}

func profileNames() []string {
	return []string{ProfilePassthrough, ProfileObsidianXML, ProfileResponses}
}

// Switches lists every switch with its default in each built-in profile.
func Switches() []SwitchInfo {
	defs := switchDefs()
	out := make([]SwitchInfo, 0, len(defs))
	for _, d := range defs {
		out = append(out, SwitchInfo{
			Name: d.name,
			Kind: d.kind,
			Doc:  d.doc,
			Defaults: map[string]string{
				ProfilePassthrough: d.pt,
				ProfileObsidianXML: d.ox,
				ProfileResponses:   d.rs,
			},
		})
	}
	return out
}

// Profiles returns the names of the built-in profiles.
func Profiles() []string { return profileNames() }

// profileColumn returns the column of a built-in profile in the switch
// table: 0 passthrough, 1 obsidian-xml, 2 responses.
func profileColumn(profile string) (int, error) {
	switch profile {
	case "", ProfilePassthrough:
		return 0, nil
	case ProfileObsidianXML:
		return 1, nil
	case ProfileResponses:
		return 2, nil
	case ProfileExternal:
		return 0, ErrExternal
	}
	return 0, fmt.Errorf("unknown profile %q (known: %s)", profile, strings.Join(profileNames(), ", "))
}

// value returns the switch's default in profile column col.
func (d *switchDef) value(col int) string {
	switch col {
	case 1:
		return d.ox
	case 2:
		return d.rs
	}
	return d.pt
}

// profileDefaults returns the full switch map of a built-in profile.
func profileDefaults(profile string) (map[string]string, error) {
	col, err := profileColumn(profile)
	if err != nil {
		return nil, err
	}
	defs := switchDefs()
	m := make(map[string]string, len(defs))
	for i := range defs {
		m[defs[i].name] = defs[i].value(col)
	}
	return m, nil
}

func switchNames() string {
	var names []string
	for _, d := range switchDefs() {
		names = append(names, d.name)
	}
	return strings.Join(names, ", ")
}

// canonValue checks value for switch name and returns its canonical spelling.
func canonValue(name, value string) (string, error) {
	for _, d := range switchDefs() {
		if d.name != name {
			continue
		}
		v := strings.ToLower(strings.TrimSpace(value))
		if d.kind == "bool" {
			switch v {
			case "on", "true", "1", "yes":
				return "on", nil
			case "off", "false", "0", "no":
				return "off", nil
			}
			return "", fmt.Errorf("switch %s: bad value %q (want on or off)", name, value)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return "", fmt.Errorf("switch %s: bad value %q (want a count ≥ 0)", name, value)
		}
		return strconv.Itoa(n), nil
	}
	return "", fmt.Errorf("unknown switch %q (known: %s)", name, switchNames())
}

// Resolve returns the full engine description for profile with the switches
// in set overriding the profile's defaults: every switch has a value, so a
// capture header written from it says exactly which engine ran.
func Resolve(profile string, set map[string]string) (tape.Engine, error) {
	if profile == "" {
		profile = DefaultProfile
	}
	m, err := profileDefaults(profile)
	if err != nil {
		return tape.Engine{}, err
	}
	if err := applySet(set, func(k, v string) { m[k] = v }); err != nil {
		return tape.Engine{}, err
	}
	return tape.Engine{Profile: profile, Switches: m}, nil
}

// applySet checks every switch in set and calls apply with its name and
// canonical value. When several are bad, the error is for the first in
// name order, whatever the map's iteration order.
func applySet(set map[string]string, apply func(name, value string)) error {
	var bad string
	var badErr error
	for k, v := range set {
		c, err := canonValue(k, v)
		if err != nil {
			if badErr == nil || k < bad {
				bad, badErr = k, err
			}
			continue
		}
		apply(k, c)
	}
	return badErr
}

// resolveConfig is [Resolve] straight into the typed config, without
// building a switch map.
func resolveConfig(profile string, set map[string]string) (config, error) {
	col, err := profileColumn(profile)
	if err != nil {
		return config{}, err
	}
	c := columnConfig(col)
	if err := applySet(set, c.set); err != nil {
		return config{}, err
	}
	return c, nil
}

// columnConfig returns the config of the built-in profile in column col.
func columnConfig(col int) config {
	var c config
	defs := switchDefs()
	for i := range defs {
		c.set(defs[i].name, defs[i].value(col))
	}
	return c
}

// config is the resolved, typed form of a switch map.
type config struct {
	xmlTools, toolBlock, holdback, suppressTail bool
	stopAfter                                   int
	responsesAdapter, incrementalArgs           bool
	overlapDedupe, voidArgsTag                  bool
	// decodeAlways keeps decoding and re-encoding even when no transform
	// applies; the codec tests use it.
	decodeAlways bool
}

// reshapes reports whether any transform can change a stream whose client
// protocol is its upstream protocol. When none can, the decoding engine goes
// back to passing bytes through once it has seen the protocol.
func (c config) reshapes() bool {
	return c.xmlTools || c.toolBlock || c.holdback || c.suppressTail || c.stopAfter > 0 ||
		!c.incrementalArgs || c.overlapDedupe
}

// passthrough reports whether every switch has its passthrough value, so the
// engine would change nothing in any stream.
func (c config) passthrough() bool { return c == columnConfig(0) }

// set sets the switch name to its canonical value v.
func (c *config) set(name, v string) {
	on := v == "on"
	switch name {
	case SwXMLTools:
		c.xmlTools = on
	case SwToolBlock:
		c.toolBlock = on
	case SwHoldback:
		c.holdback = on
	case SwSuppressTail:
		c.suppressTail = on
	case SwStopAfterTools:
		c.stopAfter, _ = strconv.Atoi(v)
	case SwResponsesAdapter:
		c.responsesAdapter = on
	case SwIncrementalArgs:
		c.incrementalArgs = on
	case SwOverlapDedupe:
		c.overlapDedupe = on
	case SwVoidArgsTag:
		c.voidArgsTag = on
	}
}

// ParseSet parses --set arguments of the form "switch=value" into a map for
// [Resolve], checking each switch name and value.
func ParseSet(args []string) (map[string]string, error) {
	m := make(map[string]string, len(args))
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("set %q: want switch=value", a)
		}
		c, err := canonValue(k, v)
		if err != nil {
			return nil, fmt.Errorf("set %q: %w", a, err)
		}
		m[k] = c
	}
	return m, nil
}

// Summary formats an engine as "profile (switch=value, ...)", listing only
// the switches whose values differ from the profile's defaults (all of
// them for a profile it does not know).
func Summary(e tape.Engine) string {
	def, err := Resolve(e.Profile, nil)
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(e.Switches)) {
		if err != nil || def.Switches[k] != e.Switches[k] {
			diffs = append(diffs, k+"="+e.Switches[k])
		}
	}
	if len(diffs) == 0 {
		return e.Profile
	}
	return e.Profile + " (" + strings.Join(diffs, ", ") + ")"
}
