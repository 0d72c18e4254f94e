package textreport

import (
	"fmt"
	"io"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// WriteReplay says how exchange x replayed (res, replayed being its
// exchange) compares with the recording: identical frame for frame, or
// where it differs, how the findings change from the recorded client side
// to the replayed one and the diff of the assembled client output. It
// reports whether the replay differs from a recorded client side.
func WriteReplay(w io.Writer, x, replayed *tape.Exchange, res *replay.Result) (differs bool, err error) {
	// Describe's lines each go through the sanitiser (its excerpts are
	// quoted already; a capture's bytes never reach the terminal raw).
	desc := strings.Split(res.Describe(), "\n")
	for i := range desc {
		desc[i] = visible.String(desc[i])
	}
	fmt.Fprintf(w, "exchange %d: %s\n", x.Ex, strings.Join(desc, "\n"))
	if res.Identical() || res.NoClient {
		return false, nil
	}
	a := inspect.Inspect(&tape.Capture{Name: "recorded", Exchanges: []*tape.Exchange{x}}, inspect.Options{NoDiffs: true})
	b := inspect.Inspect(&tape.Capture{Name: "replayed", Exchanges: []*tape.Exchange{replayed}}, inspect.Options{NoDiffs: true})
	if len(a.Exchanges) == 0 || len(b.Exchanges) == 0 {
		return true, nil
	}
	fmt.Fprintf(w, "  findings, recorded → replayed: %s\n", inspect.CompareFindings(a.Exchanges[0].Findings, b.Exchanges[0].Findings))
	d := inspect.DiffExchangeReports(a.Exchanges[0], b.Exchanges[0])
	d.A, d.B = "recorded client", "replayed client"
	return true, WriteDiff(w, d, false)
}
