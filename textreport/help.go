package textreport

import (
	"regexp"
	"strings"
)

// columnRow matches a row of a two-column list ("  --listen ADDR   text",
// "  inspect   text"): its first column and the gap after it.
var columnRow = regexp.MustCompile(`^(\s+\S+(?: \S+)*?\s{2,})\S`)

// FitHelp rewraps every line of help text longer than width columns: a
// command line (an indented "seam …") breaks with a shell continuation,
// so it can still be pasted; a two-column row hangs under its second
// column; any other line wraps under its own indent.
func FitHelp(text string, width int) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		nl := strings.HasSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\n")
		if len([]rune(line)) <= width {
			b.WriteString(line)
		} else {
			b.WriteString(strings.TrimSuffix(fitLine(line, width), "\n"))
		}
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// fitLine wraps one long line (see FitHelp).
func fitLine(line string, width int) string {
	indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
	rest := strings.TrimLeft(line, " ")
	switch {
	case strings.HasPrefix(line, "Usage: "):
		return WrapWords(strings.Fields(line[len("Usage: "):]), width, "Usage: ", "       ")
	case indent != "" && strings.HasPrefix(rest, "seam "):
		words := strings.Fields(rest)
		out := WrapWords(words, width-2, indent, indent+"    ")
		return strings.ReplaceAll(strings.TrimSuffix(out, "\n"), "\n", " \\\n") + "\n"
	case columnRow.MatchString(line):
		head := columnRow.FindStringSubmatch(line)[1]
		return WrapWords(strings.Fields(line[len(head):]), width, head, strings.Repeat(" ", len([]rune(head))))
	default:
		return Wrap(rest, width, indent)
	}
}
