package query

import (
	"fmt"
	"strings"
)

// FilterHelp documents the filter language, for "seam help where".
func FilterHelp() string {
	var b strings.Builder
	b.WriteString(`A filter selects exchanges. It is a list of terms separated by spaces;
an exchange must satisfy every term. The same language serves --where on
inspect, stats, grep and export, and the TUI's filter (f).

  field=value       equals (case-insensitive); * and ? are globs, and a
                    comma gives alternatives: model=gpt-5*,claude-*
  field!=value      none of the values
  field:value       contains: endpoint:chat (for numbers, starts with:
                    status:5 is any 5xx)
  field~regexp      matches the regular expression (RE2, case-insensitive)
  field!~regexp     does not match it
  field<N  <=  >  >=  for numbers, durations (300ms, 2s), severities and times
  word              any other word: the exchange's columns or its text
                    contain it (case-insensitive)

Put a value with spaces in double quotes: text="tool call"; a word that
starts with a quote is always a free word: "</use_tool<use_tool>". A field a
filter cannot know for an exchange (its ttfb before the first byte, its
findings before it is inspected) satisfies only != and !~.

Fields:
`)
	for _, f := range fieldDefs {
		name := f.name
		if len(f.aliases) > 0 {
			name += " (" + strings.Join(f.aliases, ", ") + ")"
		}
		fmt.Fprintf(&b, "  %-28s %s\n", name, f.help)
	}
	b.WriteString(`
Examples:
  model=gpt-5 outcome!=complete finding=diff.*
  stalls>0 day=2026-11-22
  gap.max>2s endpoint:/v1/messages
  sev>=warn tool=read_file
  finding=session.* session=s1a2b3c4d
`)
	return b.String()
}
