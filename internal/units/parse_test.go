package units

import "testing"

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"64MiB": 64 << 20, "64 MiB": 64 << 20, "1.5GiB": 3 << 29, "500MB": 500e6,
		"4096B": 4096, "1kib": 1024, "2 kB": 2000, " 1TiB ": 1 << 40,
	} {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "64", "MiB", "64XB", "1h", "-1MiB", "1e30TiB", "6.4.1MiB"} {
		if n, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", bad, n)
		}
	}
}
