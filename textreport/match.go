package textreport

import (
	"fmt"
	"io"

	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/visible"
)

// WriteMatch writes one match of seam grep as a line: where it is (capture#ex, side,
// place, event) and the match amid what surrounds it, the match in bold
// red with color.
func WriteMatch(out io.Writer, loc string, m query.Match, color bool) {
	place := m.Where
	if m.Side != "" {
		place = string(m.Side) + " " + place
	} else {
		place = "request " + place
	}
	if m.Event >= 0 {
		place += fmt.Sprintf(" (event %d)", m.Event)
	}
	hit := visible.String(m.Hit)
	if color {
		hit = "\x1b[1;31m" + hit + "\x1b[0m"
	}
	fmt.Fprintf(out, "%s  %s: %s%s%s\n", loc, place, visible.String(m.Before), hit, visible.String(m.After))
}

// WriteMatchJSON writes one match of seam grep as a line of JSON, with
// the capture it is in named, no character that acts on a terminal
// unescaped.
func WriteMatchJSON(w io.Writer, capture string, m query.Match) error {
	b, err := visible.EncodeJSON(struct {
		Capture string `json:"capture"`
		query.Match
	}{capture, m}, "", "")
	if err != nil {
		return fmt.Errorf("encode match: %w", err)
	}
	_, err = w.Write(b)
	return err
}
