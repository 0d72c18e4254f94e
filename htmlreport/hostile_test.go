package htmlreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// hostile is text built to break out of HTML, CSS and SVG, to run script,
// to hide or reorder text and to corrupt the page: it goes into every
// field of hostileCapture.
const hostile = "<script>alert(1)</script>\"'`</style><img src=x onerror=alert(2)>" +
	"\u202e\u2066\x00\x1b[2J\u0085\x7f\u200b\u2028&amp;{{.}}]]></svg><!--"

// hostileCapture returns a capture with hostile in every field the page
// shows: the header (id, version, upstream, profile, switches), notes, the
// request (method, URL, header names and values, body), the response
// headers, the events (name, text, tool name and arguments, finish
// reason), outcomes and errors; a line of an unknown type; a body that is
// not UTF-8; and secrets in a header and the query.
func hostileCapture(t *testing.T) *tape.Capture {
	t.Helper()
	str := func(s string) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	chunk := func(content string, extra string) string {
		return `{"id":"c1","object":"chat.completion.chunk","model":` + str(hostile) +
			`,"choices":[{"index":0,"delta":{"content":` + str(content) + `}` + extra + `}]}`
	}
	upstream := []string{
		"event: " + strings.NewReplacer("\n", "", "\r", "").Replace(hostile) + "\ndata: " + chunk("ok "+hostile, "") + "\n\n",
		": " + hostile + "\n\n",
		`data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":` + str(hostile) +
			`,"type":"function","function":{"name":` + str(hostile) + `,"arguments":` + str(`{"q":`+str(hostile)+`}`) + `}}]}}]}` + "\n\n",
		"data: " + chunk(" tail", `,"finish_reason":`+str(hostile)) + "\n\n",
		"data: [DONE]\n\n",
	}
	client := append([]string{}, upstream...)
	client[0] = "data: " + chunk("ok <use_tool"+hostile+"\xff", "") + "\n\n"

	var b []byte
	b = tape.AppendHeader(b, tape.Header{V: 1, Seam: hostile, ID: hostile, Started: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC),
		Upstream: hostile, Engine: tape.Engine{Profile: hostile, Switches: map[string]string{hostile: hostile}}})
	b = tape.AppendNote(b, tape.Note{Ex: 0, Text: hostile})
	b = tape.AppendRequest(b, tape.Request{Ex: 1, T: 1e6, Method: "PO" + hostile, URL: "/v1/" + hostile + "?key=sk-SECRET-QUERY&q=" + hostile,
		Headers: tape.Headers{
			"authorization":        {"Bearer sk-SECRET-AUTH"},
			"user-agent":           {hostile},
			"x-" + hostile:         {"v"},
			"content-type":         {"application/json"},
			"x-stainless-" + "api": {hostile},
		},
		Body: []byte(`{"model":` + str(hostile) + `,"api_key":"sk-SECRET-BODY","raw":"` + "\u202e\u2066" + `","messages":[{"role":"user","content":` + str(hostile) + `}]}`)})
	for _, side := range []tape.Side{tape.Upstream, tape.Client} {
		b = tape.AppendResponse(b, tape.Response{Ex: 1, Side: side, T: 2e6, Status: 200,
			Headers: tape.Headers{"content-type": {"text/event-stream"}, "server": {hostile}}})
	}
	write := func(ex int, side tape.Side, parts []string, t0 int64, outcome tape.Outcome, errText string) {
		off := int64(0)
		for i, p := range parts {
			b = tape.AppendChunk(b, tape.Chunk{Ex: ex, Side: side, T: t0 + int64(i)*4e8, Off: off, Data: []byte(p)})
			off += int64(len(p))
		}
		b = tape.AppendEnd(b, tape.End{Ex: ex, Side: side, T: t0 + int64(len(parts))*4e8, Outcome: outcome, Bytes: off, Error: errText})
	}
	write(1, tape.Upstream, upstream, 3e6, tape.Complete, "")
	write(1, tape.Client, client, 4e6, tape.Outcome(hostile), hostile)
	b = tape.AppendNote(b, tape.Note{Ex: 1, Text: hostile})
	b = append(b, `{"type":`+str(hostile)+`,"ex":1}`+"\n"...)
	// Exchange 2: a body that is not JSON nor UTF-8, and an error answer.
	b = tape.AppendRequest(b, tape.Request{Ex: 2, T: 5e9, Method: "POST", URL: "/v1/chat/completions",
		Headers: tape.Headers{}, Body: []byte(hostile + "\xff\xfe")})
	b = tape.AppendResponse(b, tape.Response{Ex: 2, Side: tape.Upstream, T: 5.1e9, Status: 500, Headers: tape.Headers{"content-type": {"application/json"}}})
	write(2, tape.Upstream, []string{`{"error":{"message":` + str(hostile) + `}}`}, 5.2e9, tape.UpstreamError, hostile)

	c, err := tape.Read(bytes.NewReader(b), "/home/someone/"+hostile+".ndjson")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHostileCapture renders a capture built to attack the page and
// checks what makes the page safe to open: nothing from the capture
// becomes markup, script, style or an attribute; every control, bidi and
// format character and every byte that is not UTF-8 is shown as a visible
// escape; secrets stay out.
func TestHostileCapture(t *testing.T) {
	page := render(t, hostileCapture(t), 0)

	if !utf8.Valid(page) {
		t.Error("the page is not UTF-8")
	}
	for i, r := range string(page) {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r >= 0x7f && r < 0xa0 || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r) {
			t.Fatalf("byte %d: %U reaches the page raw: %q", i, r, page[max(0, i-40):min(len(page), i+40)])
		}
	}
	lower := bytes.ToLower(page)
	if n := bytes.Count(lower, []byte("<script")); n != 0 {
		t.Errorf("%d raw <script in the page", n)
	}
	for _, tag := range []string{"<img", "<!--", "</svg><!", "<style"} {
		want := 0
		if tag == "<style" {
			want = 1 // the page's own
		}
		if n := bytes.Count(lower, []byte(tag)); n != want {
			t.Errorf("%d raw %s in the page, want %d", n, tag, want)
		}
	}
	if n := bytes.Count(lower, []byte("</style>")); n != 1 {
		t.Errorf("%d </style> in the page, want the page's own", n)
	}
	for _, secret := range []string{"sk-SECRET", "/home/someone"} {
		if bytes.Contains(page, []byte(secret)) {
			t.Errorf("%s reaches the page", secret)
		}
	}

	doc := parse(t, page)
	walk(doc, func(n *html.Node) {
		if n.Type == html.CommentNode {
			t.Errorf("a comment in the page: %q", n.Data)
		}
		if n.Type != html.ElementNode {
			return
		}
		switch n.Data {
		case "script", "img", "iframe", "object", "embed", "link", "base", "form":
			t.Errorf("element <%s> in the page", n.Data)
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") || a.Key == "src" || a.Key == "style" {
				t.Errorf("attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
			}
			if strings.Contains(a.Val, "alert") || strings.Contains(a.Val, "U+202E") {
				t.Errorf("capture text in attribute %s=%q of <%s>", a.Key, a.Val, n.Data)
			}
		}
	})
	if n := len(find(doc, "style")); n != 1 {
		t.Errorf("%d style elements, want 1", n)
	}

	// Each dangerous character is drawn as a boxed escape.
	marks := map[string]int{}
	for _, s := range find(doc, "span", "ctl") {
		marks[text(s)]++
	}
	for _, want := range []string{"⟨U+202E⟩", "⟨U+2066⟩", "␀", "␛", "⟨U+0085⟩", "␡", "⟨U+200B⟩", "⟨U+2028⟩", `⟨\xFF⟩`, `⟨\xFE⟩`} {
		if marks[want] == 0 {
			t.Errorf("no visible %s on the page (markers: %v)", want, marks)
		}
	}
	// The text itself is shown, escaped, where a reader looks for it.
	all := text(doc)
	for _, want := range []string{"<script>alert(1)</script>", "</style><img src=x onerror=alert(2)>", `&amp;{{.}}]]></svg><!--`} {
		if !strings.Contains(all, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
	if !strings.Contains(all, "[redacted]") {
		t.Error("redacted values are not shown as redacted")
	}
	for _, s := range svgParts(page) {
		if err := checkXML(s); err != nil {
			t.Errorf("a chart is not well-formed XML: %v", err)
		}
	}
}

// TestPiecesMarkEveryDangerousRune checks the marker rule itself, rune by
// rune over the planes where controls and format characters live: each is
// drawn as one marker (so are the marker characters themselves, written
// out, so that no text looks like a marker).
func TestPiecesMarkEveryDangerousRune(t *testing.T) {
	for r := rune(0); r < 0x30000; r++ {
		if r >= 0xd800 && r < 0xe000 {
			continue
		}
		s := string(r)
		ps := pieces(s, false)
		dangerous := r < 0x20 || r >= 0x7f && r < 0xa0 || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)
		markerChar := r == '↵' || r == '⇥' || r == '⟨' || r >= 0x2400 && r <= 0x2421
		if got := len(ps) == 1 && ps[0].Marker; got != (dangerous || markerChar) {
			t.Fatalf("%U: marked %v, want %v", r, got, dangerous || markerChar)
		}
		if dangerous && strings.ContainsFunc(ps[0].Text, func(r rune) bool { return r < 0x20 || unicode.Is(unicode.Cf, r) }) {
			t.Fatalf("%U: marker %q", r, ps[0].Text)
		}
	}
	if ps := pieces("a\nb\tc", true); len(ps) != 1 || ps[0].Text != "a\nb\tc" {
		t.Errorf("line feeds and tabs in a block: %v", ps)
	}
	if ps := pieces("a\nb", false); len(ps) != 3 || ps[1] != (visible.Piece{Text: "↵", Marker: true}) {
		t.Errorf("line feed on one line: %v", ps)
	}
	if ps := pieces("\xff\U000E0001", false); len(ps) != 2 || ps[0].Text != `⟨\xFF⟩` || ps[1].Text != "⟨U+E0001⟩" {
		t.Errorf("invalid byte and tag character: %v", ps)
	}
}
