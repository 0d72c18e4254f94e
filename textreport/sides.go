package textreport

import (
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// writeSides writes what each side assembled to. The client side, when it
// assembled to the very message the upstream did, says so in its header
// line; when the two texts differ, both are shown from a little before
// the byte where they part.
func writeSides(w io.Writer, sides []*inspect.SideReport, paint func(code, s string) string) {
	var up *inspect.SideReport
	for _, s := range sides {
		if s.Side == tape.Upstream {
			up = s
		}
	}
	for _, s := range sides {
		m := s.Message
		fmt.Fprintf(w, "-- %s: %s, %s, %s", visible.String(string(s.Side)), units.Count(s.Chunks, "chunk"), units.Count(s.Events, "event"), units.Count(int(s.Bytes), "byte"))
		if s.Encoding != "" {
			fmt.Fprintf(w, " %s (%d decoded)", visible.String(s.Encoding), s.Decoded)
		}
		if s.Framing != framing.Unknown && s.Framing != framing.SSE {
			fmt.Fprintf(w, ", %s", s.Framing)
		}
		if s.Outcome != "" {
			fmt.Fprintf(w, ", %s", visible.String(string(s.Outcome)))
		}
		if m.Status != "" {
			fmt.Fprintf(w, ", status %s", visible.String(m.Status))
		}
		var other *protocol.Message
		for _, o := range sides {
			if o != s {
				other = o.Message
			}
		}
		fmt.Fprintln(w)
		if s.Side == tape.Client && up != nil && inspect.SameAssembly(up.Message, m) {
			fmt.Fprintf(w, "   the same message as upstream\n")
			continue
		}
		var otherTexts map[int]string // the other side's text by choice
		if other != nil {
			otherTexts = make(map[int]string, len(other.Choices))
			for _, oc := range other.Choices {
				otherTexts[oc.Index] = oc.Text
			}
		}
		for _, ch := range m.Choices {
			if len(m.Choices) > 1 {
				fmt.Fprintf(w, "   choice %d\n", ch.Index)
			}
			if ch.Reasoning != "" {
				fmt.Fprintf(w, "   reasoning: %s\n", quoteClip(ch.Reasoning, textClip))
			}
			otherText, hasOther := otherTexts[ch.Index]
			if ch.Text != "" || otherText != "" || len(ch.ToolCalls) == 0 {
				fmt.Fprintf(w, "   %s\n", sideText(ch.Text, otherText, hasOther, s.Side == tape.Client))
			}
			if ch.Refusal != "" {
				fmt.Fprintf(w, "   refusal: %s\n", quoteClip(ch.Refusal, textClip))
			}
			for _, tc := range ch.ToolCalls {
				fmt.Fprintf(w, "   tool %d %s %s #%s\n", tc.Index, visible.String(tc.Name), visible.String(clipCount(tc.Arguments, argsClip)), visible.String(tc.ID))
			}
			for _, st := range ch.ServerTools {
				result := ""
				if st.Result != "" {
					result = ": " + visible.String(st.Result)
				}
				fmt.Fprintf(w, "   server tool %s %s #%s (run by the provider%s)\n", visible.String(st.Name), visible.String(clipCount(st.Input, argsClip)), visible.String(st.ID), result)
			}
			fmt.Fprintf(w, "   finish: %s\n", orDash(ch.FinishReason))
		}
		if m.Usage != nil {
			fmt.Fprintf(w, "   usage: in %d, out %d", m.Usage.Input, m.Usage.Output)
			if m.Usage.Reasoning > 0 {
				fmt.Fprintf(w, " (reasoning %d)", m.Usage.Reasoning)
			}
			fmt.Fprintln(w)
		}
		if m.Error != "" {
			fmt.Fprintf(w, "   error: %s\n", paint(ansiRed, visible.String(m.Error)))
		}
	}
}

// sideText renders one side's text. Alone, or beside an equal text on the
// upstream side, it is its start; on the client side beside an equal
// upstream text it is said to be the same; beside a different text it is
// the text from a little before the first byte where the two differ, so
// the two lines show where they part instead of the same start twice.
func sideText(s, other string, hasOther, client bool) string {
	size := units.Count(len(s), "byte")
	switch {
	case !hasOther:
		if len(s) > textClip {
			return fmt.Sprintf("text (%s): %s", size, strconv.Quote(excerpt.Clip(s, textClip)))
		}
		return "text: " + strconv.Quote(s)
	case s == other && client:
		return fmt.Sprintf("text: the same as upstream (%s)", size)
	case s == other:
		return sideText(s, "", false, client)
	}
	at, _ := inspect.CommonAffixes(s, other)
	from := max(0, at-textBefore)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	text := strconv.Quote(excerpt.Clip(s[from:], textClip))
	if from > 0 {
		text = "…" + text
	}
	return fmt.Sprintf("text (%s; differs from byte %d): %s", size, at, text)
}
