package shape

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/seam-dev/seam/tape"
)

// ParseProfile reads a profile file (format in the package documentation) and
// returns the full engine it describes. name is used in error messages only.
// The returned Profile is the file's base profile, so a capture header written
// from it rebuilds the same engine without the file.
func ParseProfile(r io.Reader, name string) (tape.Engine, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	base := ""
	set := map[string]string{}
	seen := map[string]int{}
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return tape.Engine{}, fmt.Errorf("%s:%d: want key = value, got %q", name, n, line)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "" || v == "" {
			return tape.Engine{}, fmt.Errorf("%s:%d: want key = value, got %q", name, n, line)
		}
		if prev, dup := seen[k]; dup {
			return tape.Engine{}, fmt.Errorf("%s:%d: %s already set on line %d", name, n, k, prev)
		}
		seen[k] = n
		if k == "profile" {
			if _, err := profileDefaults(v); err != nil {
				return tape.Engine{}, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			base = v
			continue
		}
		c, err := canonValue(k, v)
		if err != nil {
			return tape.Engine{}, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		set[k] = c
	}
	if err := sc.Err(); err != nil {
		return tape.Engine{}, fmt.Errorf("read profile %s: %w", name, err)
	}
	e, err := Resolve(base, set)
	if err != nil {
		return tape.Engine{}, fmt.Errorf("%s: %w", name, err)
	}
	return e, nil
}

// Choose returns the full engine description a capture header records for
// the engine a command line asks for: profile (a built-in profile's name,
// or a profile file), else base (a capture's recorded engine; the default
// profile when nil), with the switches in set applied on top.
func Choose(profile string, set map[string]string, base *tape.Engine) (tape.Engine, error) {
	var eng tape.Engine
	switch {
	case profile != "" && isProfileFile(profile):
		file, err := os.Open(profile)
		if err != nil {
			return tape.Engine{}, fmt.Errorf("--profile: %w", err)
		}
		defer file.Close()
		if eng, err = ParseProfile(file, profile); err != nil {
			return tape.Engine{}, err
		}
	case profile != "":
		eng.Profile = profile
	case base != nil:
		eng = *base
	}
	switches := maps.Clone(eng.Switches)
	if switches == nil {
		switches = map[string]string{}
	}
	maps.Copy(switches, set)
	return Resolve(eng.Profile, switches)
}

// isProfileFile reports whether a --profile value names a file rather
// than a built-in profile.
func isProfileFile(v string) bool {
	if slices.Contains(Profiles(), v) {
		return false
	}
	_, err := os.Stat(v)
	return err == nil || strings.ContainsAny(v, "/.")
}
