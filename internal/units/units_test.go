package units

import "testing"

// TestBytes: binary units, whole numbers exact, three significant digits
// otherwise, never "1024 KiB".
func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		-1:            "-",
		0:             "0 B",
		812:           "812 B",
		1023:          "1023 B",
		1024:          "1 KiB",
		1025:          "1.0 KiB",
		7680:          "7.5 KiB",
		10188:         "9.9 KiB",
		10199:         "10 KiB",
		64 << 10:      "64 KiB",
		126_000:       "123 KiB",
		1<<20 - 1:     "1.0 MiB",
		16 << 20:      "16 MiB",
		3_355_443:     "3.2 MiB",
		1_288_490_189: "1.2 GiB",
		5 << 40:       "5 TiB",
		1<<63 - 1:     "8.0 EiB",
		1_048_166:     "1.0 MiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestDuration: the largest unit reached once rounded, one decimal in ms
// and three in s at most, trailing zeros dropped.
func TestDuration(t *testing.T) {
	for ns, want := range map[int64]string{
		-1:                "-",
		0:                 "0s",
		500:               "500ns",
		999:               "999ns",
		1000:              "1µs",
		37_400:            "37µs",
		999_600:           "1ms",
		5_000_000:         "5ms",
		412_340_000:       "412.3ms",
		400_000_000:       "400ms",
		999_960_000:       "1s",
		1_000_000_000:     "1s",
		2_484_000_000:     "2.484s",
		2_500_000_000:     "2.5s",
		75_000_000_000:    "75s",
		3_723_456_000_000: "3723.456s",
	} {
		if got := Duration(ns); got != want {
			t.Errorf("Duration(%d) = %q, want %q", ns, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 files"}, {1, "1 file"}, {2, "2 files"}, {-1, "-1 files"}} {
		if got := Count(c.n, "file"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if Noun(int64(1), "span") != "span" || Noun(int64(3), "span") != "spans" {
		t.Error("Noun")
	}
}
