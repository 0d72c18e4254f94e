package inspect_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible/visibletest"
)

// TestHostileText: a capture carrying an OSC 52 clipboard write, CSI
// sequences, bidi controls, NUL and C1 controls in every field goes
// through the text report, the client views and the diffs with nothing a
// terminal would act on left (with colour, only inspect's own SGR codes),
// and the hostile text still shows, as markers.
func TestHostileText(t *testing.T) {
	c, err := tape.Read(bytes.NewReader(visibletest.Capture), "hostile.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	rep := inspect.Inspect(c, inspect.Options{})
	check := func(what, out string) {
		t.Helper()
		if err := visibletest.Check(out); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		if err := inspect.WriteText(&b, rep, color); err != nil {
			t.Fatal(err)
		}
		check("text report", b.String())
		for _, want := range []string{"POST /v1/chat/completions", "model gpt-4o␛]52;c;SGFjaw==␇␛[2J␛[8m⟨U+202E⟩⟨U+2066⟩␀⟨U+009B⟩⟨U+0085⟩␡", "tool 0 fn␛]52", "#call␛]52", "finish: stop␛]52", "\n   PO␛]52", "upstream_error␛]52"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("text report lacks %q", want)
			}
		}
	}
	var j bytes.Buffer
	if err := inspect.WriteJSON(&j, rep); err != nil {
		t.Fatal(err)
	}
	check("JSON report", j.String())
	for _, cl := range inspect.Clients() {
		var b bytes.Buffer
		if err := inspect.WriteClient(&b, rep, cl); err != nil {
			t.Fatal(err)
		}
		check("client "+cl, b.String())
	}
	for _, x := range rep.Exchanges {
		for _, d := range x.Diffs {
			var b bytes.Buffer
			if err := inspect.WriteDiff(&b, d, true); err != nil {
				t.Fatal(err)
			}
			check("diff "+d.Kind, b.String())
		}
	}
}
