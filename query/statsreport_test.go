package query

import (
	"testing"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
)

// TestStatsReport: the document carries the figures and, grouped by
// session, only the sessions that are groups; grouped otherwise, none.
func TestStatsReport(t *testing.T) {
	xs := []*tape.Exchange{
		chatExchange(1, `{"model":"m-a","stream":true,"messages":[]}`, nil, toolCallEvents("m-a", `{}`, 200, 20)...),
		chatExchange(2, `{"model":"m-b","stream":true,"messages":[]}`, nil, toolCallEvents("m-b", `{}`, 100, 10)...),
	}
	c := capture("c.ndjson", xs...)
	rep := inspect.Inspect(c, inspect.Options{AssembleOnly: true})
	linked := []*session.Session{{ID: "-"}, {ID: "s9"}}
	for _, by := range [][]string{{"model", "session"}, {"model"}} {
		st, err := NewStats(by, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range xs {
			st.Add(c.Name, &c.Header, x, rep.Exchanges[i])
		}
		r := st.Report(1, linked)
		if r.Captures != 1 || r.Exchanges != 2 || len(r.Groups) != 2 || r.Stall != inspect.DefaultStall {
			t.Errorf("by %v: %+v", by, r)
		}
		wantSessions := 0
		if len(by) == 2 {
			wantSessions = 1 // the exchanges' session "-" is a group, s9 is not
		}
		if len(r.Sessions) != wantSessions || wantSessions == 1 && r.Sessions[0].ID != "-" {
			t.Errorf("by %v: sessions %+v", by, r.Sessions)
		}
	}
}
