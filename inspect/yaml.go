package inspect

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
)

// parseYAML is a minimal YAML reader, enough for VCR cassettes: block
// mappings and sequences by indentation, plain, single- and double-quoted
// scalars, block scalars (| |- |+ > >- >+), and the empty flow forms [] and
// {}. Numbers become float64, true/false bools, null/~ nil. Anchors, tags
// and flow collections with content are not supported.
func parseYAML(b []byte) (any, error) {
	raw := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	p := &yamlParser{lines: raw}
	p.skipBlank()
	if p.i >= len(p.lines) {
		return nil, nil
	}
	return p.node(indentOf(p.lines[p.i]))
}

type yamlParser struct {
	lines []string
	i     int
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

func (p *yamlParser) skipBlank() {
	for p.i < len(p.lines) {
		t := strings.TrimSpace(p.lines[p.i])
		if t != "" && !strings.HasPrefix(t, "#") && t != "---" && t != "..." {
			return
		}
		p.i++
	}
}

// node parses the block starting at line p.i with the given indent.
func (p *yamlParser) node(ind int) (any, error) {
	p.skipBlank()
	if p.i >= len(p.lines) {
		return nil, nil
	}
	line := p.lines[p.i][ind:]
	if strings.HasPrefix(line, "- ") || line == "-" {
		return p.seq(ind)
	}
	return p.mapping(ind)
}

func (p *yamlParser) seq(ind int) (any, error) {
	out := []any{}
	for {
		p.skipBlank()
		if p.i >= len(p.lines) || indentOf(p.lines[p.i]) != ind {
			return out, nil
		}
		line := p.lines[p.i][ind:]
		if !strings.HasPrefix(line, "-") {
			return out, nil
		}
		rest := strings.TrimPrefix(strings.TrimPrefix(line, "-"), " ")
		if strings.TrimSpace(rest) == "" {
			p.i++
			v, err := p.node(p.nextIndent())
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		// "- key: value" starts a mapping indented at the item's content.
		inner := ind + (len(line) - len(rest))
		if _, _, ok := splitKey(rest); ok {
			p.lines[p.i] = strings.Repeat(" ", inner) + rest
			v, err := p.mapping(inner)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		p.i++
		v, err := p.scalarValue(rest, ind)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

func (p *yamlParser) nextIndent() int {
	p.skipBlank()
	if p.i >= len(p.lines) {
		return 0
	}
	return indentOf(p.lines[p.i])
}

func (p *yamlParser) mapping(ind int) (any, error) {
	out := map[string]any{}
	for {
		p.skipBlank()
		if p.i >= len(p.lines) || indentOf(p.lines[p.i]) != ind {
			return out, nil
		}
		line := p.lines[p.i][ind:]
		if strings.HasPrefix(line, "- ") {
			return out, nil
		}
		key, rest, ok := splitKey(line)
		if !ok {
			return nil, fmt.Errorf("yaml line %d: expected key: value", p.i+1)
		}
		p.i++
		rest = strings.TrimSpace(rest)
		if rest == "" {
			p.skipBlank()
			if p.i < len(p.lines) {
				ni := indentOf(p.lines[p.i])
				if ni > ind || (ni == ind && strings.HasPrefix(p.lines[p.i][ni:], "- ")) {
					v, err := p.node(ni)
					if err != nil {
						return nil, err
					}
					out[key] = v
					continue
				}
			}
			out[key] = nil
			continue
		}
		v, err := p.scalarValue(rest, ind)
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
}

// splitKey splits "key: value" (the key may be quoted).
func splitKey(s string) (key, rest string, ok bool) {
	if strings.HasPrefix(s, "'") || strings.HasPrefix(s, `"`) {
		q := s[0]
		end := strings.IndexByte(s[1:], q)
		if end < 0 || !strings.HasPrefix(s[end+2:], ":") {
			return "", "", false
		}
		k, _ := unquoteYAML(s[:end+2])
		return k.(string), s[end+3:], true
	}
	i := strings.Index(s, ": ")
	if i < 0 {
		if strings.HasSuffix(s, ":") {
			return s[:len(s)-1], "", true
		}
		return "", "", false
	}
	return s[:i], s[i+2:], true
}

// scalarValue parses an inline value; block scalars read the lines below,
// which must be indented more than parent.
func (p *yamlParser) scalarValue(v string, parent int) (any, error) {
	if v[0] == '|' || v[0] == '>' {
		return p.blockScalar(v, parent), nil
	}
	// A plain scalar continues on more-indented lines, folded with spaces.
	if v[0] != '"' && v[0] != '\'' {
		for p.i < len(p.lines) && strings.TrimSpace(p.lines[p.i]) != "" && indentOf(p.lines[p.i]) > parent+1 {
			v += " " + strings.TrimSpace(p.lines[p.i])
			p.i++
		}
	}
	return unquoteYAML(v)
}

func (p *yamlParser) blockScalar(header string, parent int) string {
	chomp := byte(0)
	if len(header) > 1 {
		chomp = header[1]
	}
	var lines []string
	ind := -1
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if strings.TrimSpace(l) == "" {
			lines = append(lines, "")
			p.i++
			continue
		}
		li := indentOf(l)
		if li <= parent {
			break
		}
		if ind < 0 {
			ind = li
		}
		if li < ind {
			break
		}
		lines = append(lines, l[ind:])
		p.i++
	}
	// Trailing blank lines: kept with +, dropped otherwise.
	n := len(lines)
	for n > 0 && lines[n-1] == "" {
		n--
	}
	trailing := len(lines) - n
	sep := "\n"
	if header[0] == '>' {
		sep = " "
	}
	s := strings.Join(lines[:n], sep)
	switch chomp {
	case '-':
	case '+':
		s += "\n" + strings.Repeat("\n", trailing)
	default:
		if n > 0 {
			s += "\n"
		}
	}
	return s
}

func unquoteYAML(v string) (any, error) {
	v = strings.TrimSpace(v)
	switch {
	case strings.HasPrefix(v, `"`):
		s, err := strconv.Unquote(v)
		if err != nil {
			return nil, fmt.Errorf("yaml: bad double-quoted scalar %s: %w", excerpt.Clip(v, 40), err)
		}
		return s, nil
	case strings.HasPrefix(v, "'"):
		return strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(v, "'"), "'"), "''", "'"), nil
	case v == "[]":
		return []any{}, nil
	case v == "{}":
		return map[string]any{}, nil
	case v == "null" || v == "~":
		return nil, nil
	case v == "true":
		return true, nil
	case v == "false":
		return false, nil
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f, nil
	}
	return v, nil
}
