package textreport

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/goldenfile"
	"github.com/seam-dev/seam/internal/streamtest"
)

// screen returns what a terminal of w columns shows of out in its first
// h rows (from the top when last is false, else the last h rows): every
// line wrapped at w columns as a terminal wraps it, one column a rune.
func screen(out string, w, h int, last bool) string {
	var rows []string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		for utf8.RuneCountInString(line) > w {
			cut := 0
			for i := range line {
				if utf8.RuneCountInString(line[:i]) == w {
					cut = i
					break
				}
			}
			rows = append(rows, line[:cut])
			line = line[cut:]
		}
		rows = append(rows, line)
	}
	if len(rows) > h {
		if last {
			rows = rows[len(rows)-h:]
		} else {
			rows = rows[:h]
		}
	}
	return strings.Join(rows, "\n") + "\n"
}

// TestFirstScreenGolden keeps what seam inspect shows first on an 80×24
// terminal for every fixture capture: the verdict line (protocol, outcome,
// the worst finding with where it was born) on the first row, then the
// request and the findings. For the incident, the error and its event are
// on the first row; SEAM_GEN=1 regenerates the files.
func TestFirstScreenGolden(t *testing.T) {
	t.Parallel()
	for _, name := range fixtures.Captures() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := fixtures.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := Write(&b, inspect.Inspect(c, inspect.Options{}), false); err != nil {
				t.Fatal(err)
			}
			base := strings.TrimSuffix(name, ".ndjson")
			how := "SEAM_GEN=1 go test ./textreport -run TestFirstScreenGolden"
			goldenfile.Check(t, filepath.Join("testdata", "first-screen", base+".golden"), []byte(screen(b.String(), 80, 24, false)), how)
			goldenfile.Check(t, filepath.Join("testdata", "last-screen", base+".golden"), []byte(screen(b.String(), 80, 24, true)), how)
		})
	}
}

// TestFirstScreenSaysWhatIsWrong checks the incident's first screen
// without a golden: the first row is the verdict naming the error and its
// event, the first finding starts within the first ten rows, and the
// summary ends the report.
func TestFirstScreenSaysWhatIsWrong(t *testing.T) {
	t.Parallel()
	c, err := fixtures.Load("incident-holdback-off.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, inspect.Inspect(c, inspect.Options{}), false); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(screen(b.String(), 80, 24, false), "\n")
	if want := "== ex 1 · openai-chat · complete · error xml.unclosed-closer at client event 282"; rows[0] != want {
		t.Errorf("first row %q, want %q", rows[0], want)
	}
	found := -1
	for i, r := range rows[:10] {
		if strings.HasPrefix(r, "   error xml.unclosed-closer") {
			found = i
		}
	}
	if found < 0 {
		t.Errorf("the first finding is not within the first ten rows:\n%s", strings.Join(rows, "\n"))
	}
	if !strings.HasSuffix(b.String(), "== 1 exchange: 1 with errors\n") {
		t.Errorf("the report does not end with its summary:\n%s", screen(b.String(), 80, 5, true))
	}
}

// TestShortenDiff checks that a long run of added lines keeps its first
// lines and its last with a count of the lines between, and that hunks
// past the budget are counted, leaving the diff itself unchanged.
func TestShortenDiff(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := range 40 {
		same := fmt.Sprintf("line %d of the text both sides share, long enough to stand apart\n", i)
		a.WriteString(same)
		b.WriteString(same)
		if i%4 == 0 {
			a.WriteString("old\n")
			b.WriteString("new\n")
		}
	}
	a.WriteString("end\n")
	for range 20 {
		b.WriteString("more\n")
	}
	b.WriteString("end\n")
	d := inspect.DiffTexts("test", "a", a.String(), "b", b.String())
	if len(d.Hunks) != 11 {
		t.Fatalf("%d hunks, want 11", len(d.Hunks))
	}
	s := ShortenDiff(d, 3, 10)
	if s.HunksCut != 1 || len(s.Hunks) != 10 || len(d.Hunks) != 11 {
		t.Errorf("shortened to %d hunks, %d cut (the diff has %d)", len(s.Hunks), s.HunksCut, len(d.Hunks))
	}
	s = ShortenDiff(d, 3, 20)
	last := s.Hunks[len(s.Hunks)-1].Lines
	var adds []string
	for _, l := range last {
		if l.Op == "+" {
			adds = append(adds, l.Text)
		}
	}
	if len(adds) != 5 || adds[3] != "… 17 more lines" || adds[4] != "more" {
		t.Errorf("the run of 21 added lines became %q", adds)
	}
	var out bytes.Buffer
	if err := WriteDiff(&out, ShortenDiff(d, 3, 4), false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "… 7 more hunks (seam inspect --json or seam tui shows every one)") {
		t.Errorf("the cut hunks are not counted:\n%s", out.String())
	}
}

// TestSameMessageWhateverTheEvents: a client side that assembles to the
// upstream's message, tool calls included, is said to be the same message
// even when its calls were born at other events (a proxy that adds an
// empty delta shifts them).
func TestSameMessageWhateverTheEvents(t *testing.T) {
	t.Parallel()
	up := streamtest.ChatCalls([3]string{"call_a", "read", `{"path":"a"}`})
	client := streamtest.Chunk(`{}`) + up
	r := inspect.Inspect(streamtest.Capture(up, client), inspect.Options{})
	var b strings.Builder
	if err := Write(&b, r, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "the same message as upstream") {
		t.Errorf("text report:\n%s", b.String())
	}
}
