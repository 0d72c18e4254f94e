package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/seam-dev/seam/internal/cli"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
)

// engineFlags are the --profile and --set flags shared by the commands that
// build a shaping engine.
type engineFlags struct {
	profile string
	set     setFlag
}

func (f *engineFlags) register(fs *flag.FlagSet, profileDefault string) {
	fs.StringVar(&f.profile, "profile", "", fmt.Sprintf("shaping `profile`: %s, or a profile file (default %s)",
		strings.Join(shape.Profiles(), ", "), profileDefault))
	fs.Var(&f.set, "set", "set one engine switch, `switch=value` (repeatable; seam help switches lists them)")
}

// resolve turns the flags into the full engine description written to a
// capture header. base is the engine to start from when --profile is not
// given (a capture's recorded engine, or the default profile when nil).
func (f *engineFlags) resolve(base *tape.Engine) (tape.Engine, error) {
	return shape.Choose(f.profile, f.set, base)
}

// setFlag collects repeated switch=value flags.
type setFlag = cli.Pairs
