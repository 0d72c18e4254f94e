package clients

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/seam-dev/seam/internal/jsonvalue"
	"github.com/seam-dev/seam/internal/jsstring"
)

// XMLToolCall is one tool call as Obsidian Copilot's parseXMLToolCalls
// (releases 3.0.0–3.1.5) reads it out of assembled text.
type XMLToolCall struct {
	Name string `json:"name"`
	// Args maps parameter names to values: strings, arrays ([]any), objects
	// (map[string]any) or parsed JSON, following parseParameterContent.
	Args map[string]any `json:"args"`
	// Keys lists the parameter names in the order they appeared.
	Keys []string `json:"-"`
	// Start and End are the byte range of the block in the text; End is
	// len(text) for a block that was never closed.
	Start  int  `json:"start"`
	End    int  `json:"end"`
	Closed bool `json:"closed"`
}

// Arguments returns the call's arguments as JSON with sorted keys, as a
// structured tool call carries them.
func (c XMLToolCall) Arguments() string {
	if s := jsonvalue.Encode(c.Args); s != "" {
		return s
	}
	return "{}"
}

// The tags that open and close a tool call block in Obsidian Copilot's
// XML.
const (
	XMLOpen  = "<use_tool>"
	XMLClose = "</use_tool>"
)

// ParseXMLToolCalls emulates Obsidian Copilot's parseXMLToolCalls
// (docs/PROTOCOLS.md#obsidian-xml): each "<use_tool>" opens a block that runs to the
// first "</use_tool>" or to the end of the text; the first <name> element
// names the tool (blocks without one, or with an empty name, are skipped);
// every other <tag>…</tag> pair (closer matched byte for byte, lazily) is a
// parameter, later duplicates overwriting earlier ones; unclosed parameter
// tags are dropped. No XML semantics apply: no entities, no CDATA. So a
// malformed closer such as "</use_tool<use_tool>" merges two calls into the
// first, and "<args>{}</args>" becomes a parameter named "args".
func ParseXMLToolCalls(text string) []XMLToolCall {
	var calls []XMLToolCall
	pos := 0
	for {
		i := strings.Index(text[pos:], XMLOpen)
		if i < 0 {
			break
		}
		start := pos + i
		bodyStart := start + len(XMLOpen)
		end, closed := len(text), false
		body := text[bodyStart:]
		if j := strings.Index(body, XMLClose); j >= 0 {
			body = body[:j]
			end, closed = bodyStart+j+len(XMLClose), true
		}
		pos = end
		ns := strings.Index(body, "<name>")
		if ns < 0 {
			continue
		}
		ne := strings.Index(body[ns+6:], "</name>")
		if ne < 0 {
			continue
		}
		name := jsstring.Trim(body[ns+6 : ns+6+ne])
		if name == "" {
			continue
		}
		rest := body[:ns] + body[ns+6+ne+7:]
		call := XMLToolCall{Name: name, Args: map[string]any{}, Start: start, End: end, Closed: closed}
		forEachPair(rest, func(tag, inner string) {
			key := jsstring.Trim(tag)
			if _, dup := call.Args[key]; !dup {
				call.Keys = append(call.Keys, key)
			}
			call.Args[key] = parseParameterContent(key, jsstring.Trim(inner))
		})
		calls = append(calls, call)
		if !closed {
			break
		}
	}
	return calls
}

// forEachPair runs the global regex /<([^>]+)>([\s\S]*?)<\/\1>/ over s:
// at each '<' it takes the tag up to the next '>', looks for the first
// literal closer "</tag>" after it and, failing that, moves on one byte.
func forEachPair(s string, fn func(tag, inner string)) {
	i := 0
	for i < len(s) {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			return
		}
		lt += i
		gt := strings.IndexByte(s[lt+1:], '>')
		if gt <= 0 {
			if gt < 0 {
				return
			}
			i = lt + 1
			continue
		}
		tag := s[lt+1 : lt+1+gt]
		innerStart := lt + 2 + gt
		closer := "</" + tag + ">"
		c := strings.Index(s[innerStart:], closer)
		if c < 0 {
			i = lt + 1
			continue
		}
		fn(tag, s[innerStart:innerStart+c])
		i = innerStart + c + len(closer)
	}
}

var anyTag = regexp.MustCompile(`<[^>]+>`)

// parseParameterContent converts a trimmed parameter value as Obsidian's
// parseParameterContent does (docs/PROTOCOLS.md#obsidian-xml).
func parseParameterContent(key, v string) any {
	if v == "" {
		if key == "chatHistory" || key == "salientTerms" {
			return []any{}
		}
		return ""
	}
	if !anyTag.MatchString(v) {
		if (v[0] == '[' && v[len(v)-1] == ']') || (v[0] == '{' && v[len(v)-1] == '}') {
			var out any
			if err := json.Unmarshal([]byte(v), &out); err == nil {
				return out
			}
		}
		return v
	}
	if strings.Contains(v, "<item>") {
		var items []any
		forEachPair(v, func(tag, inner string) {
			if tag == "item" {
				items = append(items, parseParameterContent("", jsstring.Trim(inner)))
			}
		})
		if items != nil {
			return items
		}
	}
	obj := map[string]any{}
	forEachPair(v, func(tag, inner string) {
		obj[jsstring.Trim(tag)] = parseParameterContent(jsstring.Trim(tag), jsstring.Trim(inner))
	})
	if len(obj) == 0 {
		return v
	}
	return obj
}

var (
	emptyFence    = regexp.MustCompile("```[A-Za-z0-9_-]*\\s*```")
	toolCodeFence = regexp.MustCompile("(?s)```tool_code.*?```")
	manyNewlines  = regexp.MustCompile(`\n{3,}`)
)

// StripToolCallXML emulates Obsidian's stripToolCallXML
// (docs/PROTOCOLS.md#obsidian-xml), the text the chat view shows: complete
// blocks removed, everything from a remaining "<use_tool>" to the end
// removed, empty and tool_code fences removed, runs of three or more
// newlines collapsed to two, then trimmed.
func StripToolCallXML(text string) string {
	// Each pattern starts with a literal; skip the regexp pass when the
	// literal is absent (the common case of plain text).
	s := text
	s = removeCompleteBlocks(s)
	if i := strings.Index(s, XMLOpen); i >= 0 {
		s = s[:i]
	}
	if strings.Contains(s, "```") {
		s = toolCodeFence.ReplaceAllString(s, "")
		s = emptyFence.ReplaceAllString(s, "")
	}
	if strings.Contains(s, "\n\n\n") {
		s = manyNewlines.ReplaceAllString(s, "\n\n")
	}
	return jsstring.Trim(s)
}

// removeCompleteBlocks removes every "<use_tool>...</use_tool>" block, each
// ending at the first closing tag after its opening tag: what replacing the
// regexp (?s)<use_tool>.*?</use_tool> with "" does, without the regexp.
func removeCompleteBlocks(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, XMLOpen)
		if i < 0 {
			break
		}
		j := strings.Index(s[i+len(XMLOpen):], XMLClose)
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		s = s[i+len(XMLOpen)+j+len(XMLClose):]
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(s)
	return b.String()
}
