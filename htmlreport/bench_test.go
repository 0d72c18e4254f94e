package htmlreport

import (
	"io"
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
)

// benchReport measures, side by side, inspecting capture c alone (what
// seam inspect costs) and inspecting it and writing its page (what seam
// report costs), in capture bytes per second.
func benchReport(b *testing.B, c *tape.Capture) {
	size := int64(0)
	for _, x := range c.Exchanges {
		for _, s := range []tape.Side{tape.Upstream, tape.Client} {
			for _, ch := range x.Side(s).Chunks {
				size += int64(len(ch.Data))
			}
		}
	}
	b.Run("inspect", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			inspect.Inspect(c, inspect.Options{})
		}
	})
	b.Run("inspect+page", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			if err := Write(io.Discard, c, inspect.Inspect(c, inspect.Options{}), testOptions); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReportIncident is seam report on the incident capture: one
// exchange of 285 chunks a side, 110 KB of stream.
func BenchmarkReportIncident(b *testing.B) {
	c, err := fixtures.Load(fixtures.Incident)
	if err != nil {
		b.Fatal(err)
	}
	benchReport(b, c)
}

// BenchmarkReportMany is seam report on a capture of 50 exchanges, each
// the incident's: 50 sections, 5.5 MB of stream.
func BenchmarkReportMany(b *testing.B) {
	one, err := fixtures.Load(fixtures.Incident)
	if err != nil {
		b.Fatal(err)
	}
	c := &tape.Capture{Name: "many", Header: one.Header}
	for i := 1; i <= 50; i++ {
		x := *one.Exchanges[0]
		x.Ex = i
		c.Exchanges = append(c.Exchanges, &x)
	}
	benchReport(b, c)
}
