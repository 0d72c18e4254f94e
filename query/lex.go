package query

import (
	"fmt"
	"strings"
)

// word is one word of a filter; quoted when it starts with a quote (a
// free word whatever it holds).
type word struct {
	text   string
	quoted bool
}

// splitWords splits s at spaces outside double quotes, removing the
// quotes (a backslash escapes a quote or a backslash inside them).
func splitWords(s string) ([]word, error) {
	var words []word
	var b strings.Builder
	in, have, quoted := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			i++
			b.WriteByte(s[i])
		case c == '"':
			if !have {
				quoted = true
			}
			in, have = !in, true
		case !in && (c == ' ' || c == '\t' || c == '\n'):
			if have {
				words = append(words, word{b.String(), quoted})
				b.Reset()
				have, quoted = false, false
			}
		default:
			b.WriteByte(c)
			have = true
		}
	}
	if in {
		return nil, fmt.Errorf("filter %q: a quote is not closed", s)
	}
	if have {
		words = append(words, word{b.String(), quoted})
	}
	return words, nil
}

// ops lists the operators, longest first so "!=" is not read as "!".
var ops = []string{"!=", "!~", "<=", ">=", "=", "~", "<", ">", ":"}

// cutOp finds the first operator in w: where it starts (-1 when w has
// none) and which it is.
func cutOp(w string) (int, string) {
	for i := 0; i < len(w); i++ {
		for _, o := range ops {
			if strings.HasPrefix(w[i:], o) {
				return i, o
			}
		}
	}
	return -1, ""
}
