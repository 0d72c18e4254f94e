package textreport

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Wrap breaks text into lines of at most width columns (a longer word
// stands alone), each starting with indent and ending in a newline.
func Wrap(text string, width int, indent string) string {
	return WrapWords(strings.Fields(text), width, indent, indent)
}

// WrapWords joins words with spaces into lines of at most width columns
// (no limit when 0; a longer word stands alone), the first line starting
// with first, the others with indent, each ending in a newline.
func WrapWords(words []string, width int, first, indent string) string {
	var b strings.Builder
	line, lead := first, first
	for _, word := range words {
		if line != lead && width > 0 && ansi.StringWidth(line)+1+ansi.StringWidth(word) > width {
			b.WriteString(line + "\n")
			line, lead = indent, indent
		}
		if line != lead {
			line += " "
		}
		line += word
	}
	if line != lead {
		b.WriteString(line + "\n")
	}
	return b.String()
}
