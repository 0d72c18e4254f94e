package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
)

// engineFlags are the --profile and --set flags shared by the commands that
// build a shaping engine.
type engineFlags struct {
	profile string
	set     setFlag
}

func (f *engineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.profile, "profile", shape.DefaultProfile, "shaping `profile`: passthrough, or a profile name or file")
	fs.Var(&f.set, "set", "override one engine switch, `switch=value` (repeatable)")
}

// resolve turns the flags into the full engine description written to the
// capture header.
func (f *engineFlags) resolve() (tape.Engine, error) {
	eng := tape.Engine{Profile: f.profile}
	if len(f.set) > 0 {
		eng.Switches = map[string]string(f.set)
	}
	if _, err := shape.New(eng, shape.Exchange{Status: 200, ContentType: "text/event-stream"}); err != nil {
		return tape.Engine{}, err
	}
	return eng, nil
}

// setFlag collects repeated switch=value flags.
type setFlag map[string]string

func (s *setFlag) String() string {
	var parts []string
	for k, v := range *s {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ",")
}

func (s *setFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want switch=value, got %q", v)
	}
	if *s == nil {
		*s = map[string]string{}
	}
	(*s)[strings.TrimSpace(k)] = strings.TrimSpace(val)
	return nil
}
