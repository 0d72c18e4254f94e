package query

import (
	"slices"
	"strings"
)

// fieldKind is how a field's values compare.
type fieldKind int

const (
	kString   fieldKind = iota // globs, contains, regexps
	kNumber                    // numbers
	kDuration                  // durations such as 300ms
	kSeverity                  // info < warn < error
	kTime                      // a date or an RFC 3339 time
)

// fieldDef is one field of the language.
type fieldDef struct {
	name    string
	aliases []string
	kind    fieldKind
	help    string
}

// fieldDefs lists the fields in the order FilterHelp documents them.
var fieldDefs = []fieldDef{
	{"model", []string{"m"}, kString, "the model the request asked for (else the one the response names)"},
	{"endpoint", []string{"ep", "path"}, kString, "the request path, e.g. /v1/chat/completions"},
	{"url", nil, kString, "the request path and query"},
	{"method", nil, kString, "GET, POST, ..."},
	{"host", nil, kString, "the host a forward-proxy recording names"},
	{"protocol", []string{"proto"}, kString, "openai-chat, openai-responses, anthropic, ..."},
	{"status", nil, kNumber, "the HTTP status clients got"},
	{"outcome", []string{"o"}, kString, "complete, client_closed_after_done, client_aborted, upstream_error, truncated, timeout, recorder_shutdown, recorder_error; ok and fail stand for any success or failure"},
	{"finding", []string{"id", "detector"}, kString, "a finding's id, e.g. finding=diff.* (true when any finding matches; != when none does)"},
	{"severity", []string{"sev"}, kSeverity, "the most serious finding: info, warn or error (sev>=warn)"},
	{"tool", nil, kString, "the name of a tool call clients got"},
	{"text", []string{"body"}, kString, "the searchable text: assembled text, tool calls, request messages, headers"},
	{"capture", []string{"file"}, kString, "the capture's path (globs match the file name too)"},
	{"ex", nil, kNumber, "the exchange number"},
	{"session", nil, kString, "the session id"},
	{"turn", nil, kNumber, "the turn in its session"},
	{"ttfb", nil, kDuration, "time to first byte, e.g. ttfb>500ms"},
	{"duration", []string{"dur"}, kDuration, "request to end of response"},
	{"gap.p50", []string{"gap_p50"}, kDuration, "median gap between chunks"},
	{"gap.p99", []string{"gap_p99"}, kDuration, "99th percentile gap between chunks"},
	{"gap.max", []string{"gap_max", "gap"}, kDuration, "largest gap between chunks"},
	{"stalls", nil, kNumber, "gaps over the stall threshold (--stall)"},
	{"events", nil, kNumber, "events on the side clients got"},
	{"tokens.in", []string{"tokens_in", "in"}, kNumber, "input tokens the usage reports"},
	{"tokens.out", []string{"tokens_out", "out"}, kNumber, "output tokens the usage reports"},
	{"tps", []string{"tokens/s"}, kNumber, "output tokens per second"},
	{"time", nil, kTime, "when the request was sent: time>=2026-11-22T09:00:00Z, or a date"},
	{"day", []string{"date"}, kString, "the request's UTC day, 2026-11-22"},
}

// lookupField finds a field by name or alias, case-insensitively.
func lookupField(name string) (*fieldDef, bool) {
	name = strings.ToLower(name)
	for i := range fieldDefs {
		if fieldDefs[i].name == name || slices.Contains(fieldDefs[i].aliases, name) {
			return &fieldDefs[i], true
		}
	}
	return nil, false
}

// fieldNames lists the fields' names, for an error naming an unknown one.
func fieldNames() string {
	names := make([]string, len(fieldDefs))
	for i, f := range fieldDefs {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}
