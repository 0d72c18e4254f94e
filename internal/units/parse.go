package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// byteUnits are the units ParseBytes takes, lower case: the binary ones
// Bytes writes, the decimal ones (kB is 1000 bytes), and B.
var byteUnits = map[string]float64{
	"b":   1,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
}

// ParseBytes reads a size: a number and a unit, B, KiB, MiB, GiB, TiB
// (1024s) or kB, MB, GB, TB (1000s), any case, a space between them or
// not ("64MiB", "1.5 GiB", "500MB", "4096B"). A bare number is refused: a
// size says its unit.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, fmt.Errorf("size %q: want a number and a unit, such as 64MiB or 1GiB", s)
	}
	v, err := strconv.ParseFloat(t[:i], 64)
	mul, ok := byteUnits[strings.ToLower(strings.TrimSpace(t[i:]))]
	if err != nil || !ok {
		return 0, fmt.Errorf("size %q: want a number and a unit (B, KiB, MiB, GiB, TiB, kB, MB, GB, TB), such as 64MiB", s)
	}
	n := v * mul
	if n >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(n), nil
}
