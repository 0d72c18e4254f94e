package main

import (
	"io"
	"regexp"
	"strings"

	"github.com/seam-dev/seam/textreport"
)

// helpWidth is the width help text fits: an 80-column terminal.
const helpWidth = 80

// columnRow matches a row of a two-column list ("  --listen ADDR   text",
// "  inspect   text"): its first column and the gap after it.
var columnRow = regexp.MustCompile(`^(\s+\S+(?: \S+)*?\s{2,})\S`)

// fitHelp rewraps every line of help text longer than helpWidth: a
// command line (an indented "seam …") breaks with a shell continuation,
// so it can still be pasted; a two-column row hangs under its second
// column; any other line wraps under its own indent.
func fitHelp(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		nl := strings.HasSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\n")
		if len([]rune(line)) <= helpWidth {
			b.WriteString(line)
		} else {
			b.WriteString(strings.TrimSuffix(fitLine(line), "\n"))
		}
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// fitLine wraps one long line (see fitHelp).
func fitLine(line string) string {
	indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
	rest := strings.TrimLeft(line, " ")
	switch {
	case strings.HasPrefix(line, "Usage: "):
		return textreport.WrapWords(strings.Fields(line[len("Usage: "):]), helpWidth, "Usage: ", "       ")
	case indent != "" && strings.HasPrefix(rest, "seam "):
		words := strings.Fields(rest)
		out := textreport.WrapWords(words, helpWidth-2, indent, indent+"    ")
		return strings.ReplaceAll(strings.TrimSuffix(out, "\n"), "\n", " \\\n") + "\n"
	case columnRow.MatchString(line):
		head := columnRow.FindStringSubmatch(line)[1]
		return textreport.WrapWords(strings.Fields(line[len(head):]), helpWidth, head, strings.Repeat(" ", len([]rune(head))))
	default:
		return textreport.Wrap(rest, helpWidth, indent)
	}
}

// writeFitted writes help text through fitHelp.
func writeFitted(w io.Writer, text string) {
	io.WriteString(w, fitHelp(text))
}
