package tape

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// MinSecret is the length below which a secret value is not looked for in
// responses: a short value ("a", "true", "1234") would mask ordinary text.
const MinSecret = 8

// Secrets returns the secret values a request carried in its headers and
// URL, for [Masker] to mask where a response echoes them: the values of
// the credential headers (those RedactHeaders always redacts, those with a
// secret-looking name and those --redact names), with the token after an
// auth scheme ("Bearer sk-…" gives "sk-…" too), each cookie's value and
// the WebSocket subprotocols that carry a key;
// the values of secret query parameters, escaped and not; and the matches
// of the --redact regular expressions in the URL and the header values.
func (r *Redaction) Secrets(h http.Header, u *url.URL) []string {
	var out []string
	for name, vals := range h {
		lower := strings.ToLower(name)
		credential := alwaysRedacted(lower) || !headerAllowed(lower) && secretLooking(lower) ||
			r != nil && r.headers[lower]
		for _, v := range vals {
			if r != nil {
				for _, re := range r.res {
					out = append(out, re.FindAllString(v, -1)...)
				}
			}
			if lower == "sec-websocket-protocol" {
				// A key sent as a subprotocol: "openai-insecure-api-key.sk-…".
				for p := range strings.SplitSeq(v, ",") {
					if p = strings.TrimSpace(p); secretLooking(strings.ToLower(p)) {
						_, tok, _ := strings.Cut(p, ".")
						out = append(out, p, tok)
					}
				}
			}
			if !credential {
				continue
			}
			out = append(out, v)
			if _, tok, ok := strings.Cut(v, " "); ok {
				out = append(out, strings.TrimSpace(tok))
			}
			if lower == "cookie" {
				for c := range strings.SplitSeq(v, ";") {
					if _, val, ok := strings.Cut(c, "="); ok {
						out = append(out, strings.TrimSpace(val))
					}
				}
			}
		}
	}
	if u != nil {
		out = append(out, formSecrets(u.RawQuery)...)
		if r != nil {
			for _, re := range r.res {
				out = append(out, re.FindAllString(u.String(), -1)...)
			}
		}
	}
	return out
}

// A Masker writes one side's chunks with the secret values of the
// exchange's request (see [Redaction.Secrets] and [Redaction.Body]) masked
// where the response echoes them: each occurrence is overwritten, at the
// same length, with "[redacted]" followed by '*' (or '*' only, when
// shorter), so offsets and chunk boundaries still hold. A secret split
// between two chunks is found too: a chunk whose last bytes could begin a
// secret is held back (its line is written a little later, with its
// recorded time) until the next chunk shows whether it does. The
// --redact regular expressions are applied to each chunk (and to the
// chunks held with it) the same way; a match split between chunks that
// were not held together is not found. (A secret spelled with the mask's
// own characters, '*', '[' and ']', may show through a mask next to it.)
// A Masker is safe for concurrent use.
type Masker struct {
	emit func(Chunk)

	mu      sync.Mutex
	secrets [][]byte
	// probes are the secrets that hold no other one: a chunk holding
	// none of them holds no secret ("Bearer sk-…" holds "sk-…"), so one
	// look for each is enough to pass a chunk.
	probes  [][]byte
	res     []*regexp.Regexp
	pending []Chunk // held back, data copied
	masked  int
}

// NewMasker returns a Masker that hands each chunk, masked, to emit.
// Values shorter than [MinSecret] are not looked for.
func NewMasker(secrets []string, r *Redaction, emit func(Chunk)) *Masker {
	m := &Masker{emit: emit}
	if r != nil {
		m.res = r.res
	}
	m.Add(secrets)
	return m
}

// Add adds secret values to look for, such as those of a request body
// that arrived after the response began.
func (m *Masker) Add(secrets []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range secrets {
		for _, v := range []string{s, jsonEscaped(s)} {
			if len(v) >= MinSecret && v != Redacted && !slices.ContainsFunc(m.secrets, func(b []byte) bool { return string(b) == v }) {
				m.secrets = append(m.secrets, []byte(v))
			}
		}
	}
	m.probes = m.probes[:0]
	for _, s := range m.secrets { // distinct: only a shorter one can be inside
		if !slices.ContainsFunc(m.secrets, func(o []byte) bool { return len(o) < len(s) && bytes.Contains(s, o) }) {
			m.probes = append(m.probes, s)
		}
	}
}

// Looking reports whether the Masker looks for anything: a secret value
// long enough to be looked for, or a --redact regular expression.
func (m *Masker) Looking() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.secrets) > 0 || len(m.res) > 0
}

// jsonEscaped returns s as encoding/json writes it inside a string (with
// its HTML escaping), so a secret holding '/', '<' or '"' is found in a
// JSON response too.
func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// Seen is what a [Masker] found in a chunk's bytes: for [Masker.ChunkSeen].
type Seen struct {
	clean   bool // nothing to mask in them, nothing held
	secrets int  // with this many secrets known
}

// Chunk masks c and hands it (and any chunk it releases) to emit, or holds
// it back. c.Data is not modified and may be reused once Chunk returns. It
// returns what it found in c.Data, for [Masker.ChunkSeen] on the other
// side.
func (m *Masker) Chunk(c Chunk) Seen { return m.ChunkSeen(c, Seen{}) }

// ChunkSeen is [Masker.Chunk] for bytes that another Masker, made with the
// same secrets and patterns, has just seen: when it found nothing to mask
// in them, knowing the secrets this one knows, they are not looked through
// again (in passthrough the client side is the upstream side's bytes).
func (m *Masker) ChunkSeen(c Chunk, seen Seen) Seen {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.clear(c.Data, seen) {
		m.emit(c) // the common case: nothing to mask, nothing to hold
		return Seen{clean: true, secrets: len(m.secrets)}
	}
	m.chunk(c)
	return Seen{}
}

// Clear reports whether data, as the side's next chunk, has nothing to
// mask and nothing to hold back, with no chunk held before it: the caller
// may then record it as it is, without handing it to [Masker.Chunk]. seen
// is what another Masker saw of the same bytes ([Masker.Chunk]'s result,
// or the zero Seen), and the result what this one saw.
func (m *Masker) Clear(data []byte, seen Seen) (Seen, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.clear(data, seen) {
		return Seen{}, false
	}
	return Seen{clean: true, secrets: len(m.secrets)}, true
}

// clear is Clear with m.mu held.
func (m *Masker) clear(data []byte, seen Seen) bool {
	return len(m.pending) == 0 && m.partial(data) == 0 &&
		(seen.clean && seen.secrets == len(m.secrets) || !m.matches(data))
}

// chunk masks c with the chunks held before it and hands on what is not
// held. Called with m.mu held.
func (m *Masker) chunk(c Chunk) {
	window := c.Data
	if len(m.pending) > 0 {
		var b []byte
		for _, p := range m.pending {
			b = append(b, p.Data...)
		}
		window = append(b, c.Data...)
	}
	if m.matches(window) {
		if len(m.pending) == 0 {
			window = bytes.Clone(window)
		}
		m.mask(window)
	}
	// Split the window back into the held chunks and c.
	chunks := append(m.pending, c)
	at := 0
	for i := range chunks {
		n := len(chunks[i].Data)
		chunks[i].Data = window[at : at+n]
		at += n
	}
	// Hold back the chunks holding the longest end of the window that
	// could begin a secret.
	cut := len(window) - m.partial(window)
	m.pending = nil
	at = 0
	for i, ch := range chunks {
		if at+len(ch.Data) > cut {
			for _, h := range chunks[i:] {
				h.Data = bytes.Clone(h.Data)
				m.pending = append(m.pending, h)
			}
			return
		}
		m.emit(ch)
		at += len(ch.Data)
	}
}

// Flush hands the chunks held back to emit: the side has ended.
func (m *Masker) Flush() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.pending {
		m.emit(c)
	}
	m.pending = nil
}

// Masked returns how many occurrences were masked so far.
func (m *Masker) Masked() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.masked
}

func (m *Masker) matches(b []byte) bool {
	for _, s := range m.probes {
		if bytes.Contains(b, s) {
			return true
		}
	}
	for _, re := range m.res {
		if re.Match(b) {
			return true
		}
	}
	return false
}

// mask overwrites every occurrence in b, longest secrets first.
func (m *Masker) mask(b []byte) {
	secrets := slices.Clone(m.secrets)
	slices.SortFunc(secrets, func(a, b []byte) int { return len(b) - len(a) })
	for _, s := range secrets {
		for i := 0; ; {
			j := bytes.Index(b[i:], s)
			if j < 0 {
				break
			}
			fill(b[i+j : i+j+len(s)])
			m.masked++
			i += j + len(s)
		}
	}
	for _, re := range m.res {
		for _, loc := range re.FindAllIndex(b, -1) {
			fill(b[loc[0]:loc[1]])
			m.masked++
		}
	}
}

// fill overwrites b with "[redacted]" and '*' to its length.
func fill(b []byte) {
	n := 0
	if len(b) >= len(Redacted) {
		n = copy(b, Redacted)
	}
	for i := n; i < len(b); i++ {
		b[i] = '*'
	}
}

// partial returns the length of the longest end of b that is the start of
// a secret (shorter than the secret), or 0.
func (m *Masker) partial(b []byte) int {
	best := 0
	for _, s := range m.secrets {
		// Candidate starts: the places in the last len(s)-1 bytes holding
		// the secret's first byte, earliest first, while they would beat
		// the best so far.
		for i := max(0, len(b)-len(s)+1); i < len(b)-best; i++ {
			j := bytes.IndexByte(b[i:len(b)-best], s[0])
			if j < 0 {
				break
			}
			i += j
			if bytes.HasPrefix(s, b[i:]) {
				best = len(b) - i
				break
			}
		}
	}
	return best
}

// MaskSecrets returns b with every occurrence of the secrets masked as a
// [Masker] masks them (b itself is not modified) and how many there were;
// for a body that is whole, such as an export's.
func MaskSecrets(b []byte, secrets []string, r *Redaction) ([]byte, int) {
	var out []byte
	m := NewMasker(secrets, r, func(c Chunk) { out = append(out, c.Data...) })
	m.Chunk(Chunk{Data: b})
	m.Flush()
	return out, m.Masked()
}
