package tape

// maxRawDepth bounds the nesting of a JSON value a chunk line holds as it is
// (an "sse" piece). Events of LLM APIs nest a handful of levels; the bound
// keeps every line readable by parsers with a depth limit (jq, Python's json,
// Go's encoding/json all allow far more), and the scanner iterative.
const maxRawDepth = 64

// scanJSON checks that b[i:] starts with one JSON value as RFC 8259 defines
// it (objects and arrays nested at most maxRawDepth deep; strings free of
// control characters and of escapes other than \" \\ \/ \b \f \n \r \t and
// \uXXXX) and returns the index after it. Leading whitespace is skipped,
// trailing bytes are not looked at. It does not check UTF-8: callers do.
// It is the check on the recorder's path, so it reads each byte once and
// never allocates.
func scanJSON(b []byte, i int) (end int, ok bool) {
	var (
		closers [maxRawDepth]byte
		depth   int
		n       = len(b)
	)
value:
	i = skipSpace(b, i)
	if i >= n {
		return 0, false
	}
	switch b[i] {
	case '{', '[':
		if depth == maxRawDepth {
			return 0, false
		}
		closer := byte('}')
		if b[i] == '[' {
			closer = ']'
		}
		closers[depth] = closer
		depth++
		i = skipSpace(b, i+1)
		if i < n && b[i] == closer {
			depth--
			i++
			goto after
		}
		if closer == '}' {
			goto key
		}
		goto value
	case '"':
		if i, ok = scanJSONString(b, i+1); !ok {
			return 0, false
		}
	case 't':
		if i, ok = scanLiteral(b, i, "true"); !ok {
			return 0, false
		}
	case 'f':
		if i, ok = scanLiteral(b, i, "false"); !ok {
			return 0, false
		}
	case 'n':
		if i, ok = scanLiteral(b, i, "null"); !ok {
			return 0, false
		}
	default:
		if i, ok = scanNumber(b, i); !ok {
			return 0, false
		}
	}
after:
	if depth == 0 {
		return i, true
	}
	i = skipSpace(b, i)
	if i >= n {
		return 0, false
	}
	switch b[i] {
	case ',':
		i++
		if closers[depth-1] == '}' {
			goto key
		}
		goto value
	case closers[depth-1]:
		depth--
		i++
		goto after
	}
	return 0, false
key:
	i = skipSpace(b, i)
	if i >= n || b[i] != '"' {
		return 0, false
	}
	if i, ok = scanJSONString(b, i+1); !ok {
		return 0, false
	}
	i = skipSpace(b, i)
	if i >= n || b[i] != ':' {
		return 0, false
	}
	i++
	goto value
}

// scanJSONString checks the rest of a JSON string whose opening quote is
// just before b[i] and returns the index after its closing quote.
func scanJSONString(b []byte, i int) (int, bool) {
	for i < len(b) {
		c := b[i]
		if !mustEscape[c] { // the bytes a string holds as they are
			i++
			continue
		}
		switch c {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return 0, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(b, i+2); !ok {
					return 0, false
				}
				i += 6
			default:
				return 0, false
			}
		default: // a control character
			return 0, false
		}
	}
	return 0, false
}

// scanLiteral checks that b[i:] starts with lit.
func scanLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// scanNumber checks the JSON number at b[i] (-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?).
func scanNumber(b []byte, i int) (int, bool) {
	n := len(b)
	if i < n && b[i] == '-' {
		i++
	}
	switch {
	case i < n && b[i] == '0':
		i++
	case i < n && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return 0, false
	}
	if i < n && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

// skipDigits returns the index of the first byte at or after i that is not
// an ASCII digit.
func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
