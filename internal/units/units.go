package units

import (
	"math"
	"strconv"
)

// binary lists the size units past the byte, each 1024 times the one
// before.
var binary = []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// Bytes formats a size: "0 B", "812 B", "7.5 KiB", "16 MiB", "123 KiB",
// "1.2 GiB". A whole number of its unit is written without decimals, else
// three significant digits at most (one decimal below 10), as ls -h
// writes them; "-" for a negative size (unknown).
func Bytes(n int64) string {
	if n < 0 {
		return "-"
	}
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	i, unit := 0, int64(1024)
	for i+1 < len(binary) && n/unit >= 1024 {
		i, unit = i+1, unit*1024
	}
	if n%unit == 0 {
		return strconv.FormatInt(n/unit, 10) + " " + binary[i]
	}
	v := float64(n) / float64(unit)
	if v >= 1023.5 && i+1 < len(binary) {
		// It would round to 1024 of this unit: one of the next.
		i, v = i+1, v/1024
	}
	decimals := 0
	if v < 9.95 {
		decimals = 1
	}
	return strconv.FormatFloat(v, 'f', decimals, 64) + " " + binary[i]
}

// durationUnits lists the duration units, largest first, with their size
// in nanoseconds and the decimals written in each.
var durationUnits = []struct {
	ns       float64
	name     string
	decimals int
}{
	{1e9, "s", 3},
	{1e6, "ms", 1},
	{1e3, "µs", 0},
	{1, "ns", 0},
}

// Duration formats a duration in nanoseconds in the largest unit it
// reaches once rounded, to the microsecond below a millisecond, the tenth
// of a millisecond below a second and the millisecond past it, trailing
// zeros dropped: "0s", "500ns", "37µs", "412.3ms", "400ms", "2.484s",
// "2.5s", "75s"; "-" for a negative duration (unknown: an exchange without
// a first byte).
func Duration(ns int64) string {
	switch {
	case ns < 0:
		return "-"
	case ns == 0:
		return "0s"
	}
	for i, u := range durationUnits {
		v := float64(ns) / u.ns
		if v < 1 && i+1 < len(durationUnits) {
			continue
		}
		scale := math.Pow10(u.decimals)
		if i > 0 && math.Round(v*scale)/scale >= durationUnits[i-1].ns/u.ns {
			// Rounded up to one of the unit above: 999.96ms is 1s.
			return "1" + durationUnits[i-1].name
		}
		return trimZeros(strconv.FormatFloat(v, 'f', u.decimals, 64)) + u.name
	}
	return strconv.FormatInt(ns, 10) + "ns"
}

// trimZeros drops the trailing zeros of a decimal fraction, and its point
// when nothing is left after it.
func trimZeros(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			j := len(s)
			for s[j-1] == '0' {
				j--
			}
			if s[j-1] == '.' {
				j--
			}
			return s[:j]
		}
	}
	return s
}

// Count formats a count of things: "1 file", "0 files", "2 exchanges".
// noun is the singular, made plural with an s.
func Count[N ~int | ~int64](n N, noun string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Noun(n, noun)
}

// Noun is noun as it goes after the number n: the singular for 1, else
// with an s ("exchange", "exchanges").
func Noun[N ~int | ~int64](n N, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
