package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/internal/goldenfile"
	"github.com/seam-dev/seam/tape"
)

// TestGolden compares the page of each capture with its committed golden:
// the incident (findings, a diff, a stall and the divergence on the chart),
// the same stream with holdback on (clean), and a capture of two exchanges
// (the index, streamed-vs-final diffs).
func TestGolden(t *testing.T) {
	for _, name := range []string{fixtures.Incident, "incident-holdback-on.ndjson", "openai-responses-tool-then-text.ndjson"} {
		t.Run(name, func(t *testing.T) {
			page := render(t, loadFixture(t, name), 0)
			path := filepath.Join("testdata", strings.TrimSuffix(name, ".ndjson")+".html")
			goldenfile.Check(t, path, page, "SEAM_GEN=1 go test ./htmlreport -run TestGolden")
		})
	}
}

// TestDeterministic renders the same capture twice, from two reads, and
// wants the same bytes.
func TestDeterministic(t *testing.T) {
	a := render(t, loadFixture(t, "openai-responses-tool-then-text.ndjson"), 0)
	b := render(t, loadFixture(t, "openai-responses-tool-then-text.ndjson"), 0)
	if !bytes.Equal(a, b) {
		t.Fatal("two renderings of one capture differ")
	}
}

// TestIncidentPage checks what a reader of the incident's page relies on:
// the verdict names the worst finding and its place, the seam shows in the
// diff as text (escaped, never markup), and the chart marks the event where
// the sides diverge and the client's stall.
func TestIncidentPage(t *testing.T) {
	page := render(t, loadFixture(t, fixtures.Incident), 0)
	doc := parse(t, page)

	v := find(doc, "p", "verdict")
	if len(v) != 1 {
		t.Fatalf("%d verdict lines, want 1", len(v))
	}
	for _, want := range []string{"openai-chat", "complete", "error", "xml.unclosed-closer", "at ex 1 client event 282 (chunk 282, byte 54805, 4.034s into the capture)"} {
		if !strings.Contains(text(v[0]), want) {
			t.Errorf("verdict %q lacks %q", text(v[0]), want)
		}
	}

	// The client's "+" line of the upstream-vs-client diff is the seam.
	var diff *html.Node
	for _, d := range find(doc, "div", "diff") {
		if attr(d, "data-kind") == "upstream-vs-client" {
			diff = d
		}
	}
	if diff == nil {
		t.Fatal("no upstream-vs-client diff on the page")
	}
	seam := false
	for _, l := range find(diff, "div", "ln", "add") {
		if strings.TrimPrefix(text(l), "+") == "</use_tool<use_tool>" {
			seam = true
			if chg := find(l, "span", "chg"); len(chg) != 1 || text(chg[0]) != "<use_tool" {
				t.Errorf("the seam line emphasises %v, want <use_tool", chg)
			}
		}
	}
	if !seam {
		t.Errorf("no + line reads </use_tool<use_tool> in the diff: %q", text(diff))
	}
	if bytes.Contains(page, []byte("<use_tool")) || !bytes.Contains(page, []byte("&lt;/use_tool")) {
		t.Error("capture text reaches the page unescaped")
	}
	if hunks := find(diff, "div", "hunk-head"); len(hunks) == 0 || !strings.Contains(text(hunks[0]), "client event 282") {
		t.Errorf("the hunk does not say where it began: %v", hunks)
	}

	// The chart: one mark, on client event 282, at t=4.03s of 4.04s, with
	// a dot on the client line; a stall of the client (319.5ms) shaded.
	svgs := find(doc, "svg")
	if len(svgs) != 1 {
		t.Fatalf("%d charts, want 1", len(svgs))
	}
	marks := find(svgs[0], "g", "mark")
	if len(marks) != 1 {
		t.Fatalf("%d marks on the chart, want 1", len(marks))
	}
	if l := find(marks[0], "text"); len(l) != 1 || text(l[0]) != "client event 282: diverges, xml.unclosed-closer" {
		t.Errorf("mark label %q", text(marks[0]))
	}
	if len(find(marks[0], "circle")) != 1 {
		t.Error("the mark has no dot on the client line")
	}
	for _, lane := range find(svgs[0], "g", "lane") {
		stalls := find(lane, "rect", "stall")
		switch {
		case strings.Contains(attr(lane, "class"), "cl"):
			if len(stalls) != 1 || !strings.Contains(text(stalls[0]), "no bytes for 319.5ms") {
				t.Errorf("client stalls: %d, want the one of 319.5ms", len(stalls))
			}
		default:
			if len(stalls) != 0 {
				t.Errorf("upstream stalls: %d, want none over 250ms", len(stalls))
			}
		}
	}
	for _, s := range svgParts(page) {
		if err := checkXML(s); err != nil {
			t.Errorf("the chart is not well-formed XML: %v", err)
		}
	}
}

// TestIndexAndEx checks a capture of several exchanges: an index linking
// to one section each, and --ex keeping one.
func TestIndexAndEx(t *testing.T) {
	c := loadFixture(t, "openai-responses-tool-then-text.ndjson")
	doc := parse(t, render(t, c, 0))
	if n := len(find(doc, "section", "exchange")); n != 2 {
		t.Fatalf("%d sections, want 2", n)
	}
	idx := find(doc, "table", "index")
	if len(idx) != 1 {
		t.Fatal("no index")
	}
	var links []string
	for _, a := range find(idx[0], "a") {
		links = append(links, attr(a, "href"))
	}
	if strings.Join(links, " ") != "#ex-1 #ex-2" {
		t.Errorf("index links %v", links)
	}
	for _, l := range links {
		found := false
		walk(doc, func(n *html.Node) { found = found || attr(n, "id") == l[1:] })
		if !found {
			t.Errorf("index link %s leads nowhere", l)
		}
	}

	doc = parse(t, render(t, c, 2))
	secs := find(doc, "section", "exchange")
	if len(secs) != 1 || attr(secs[0], "id") != "ex-2" {
		t.Fatalf("--ex 2 shows %d sections", len(secs))
	}
	if len(find(doc, "table", "index")) != 0 {
		t.Error("an index for one exchange")
	}
	if p := find(doc, "p", "picked"); len(p) != 1 || !strings.Contains(text(p[0]), "1 of the capture's 2 exchanges") {
		t.Error("the page does not say it shows only some exchanges")
	}
}

// TestSelfContained checks that the page asks the browser for nothing: no
// script, no external resource, a policy that forbids fetching, and one
// style sheet, the one the policy names by hash.
func TestSelfContained(t *testing.T) {
	page := render(t, loadFixture(t, fixtures.Incident), 0)
	doc := parse(t, page)
	styles := 0
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.Data {
		case "script", "link", "img", "iframe", "object", "embed", "base", "form", "image", "use", "foreignObject":
			t.Errorf("element <%s> on the page", n.Data)
		case "style":
			styles++
		}
		for _, a := range n.Attr {
			switch {
			case strings.HasPrefix(a.Key, "on"), a.Key == "style", a.Key == "src":
				t.Errorf("attribute %s on <%s>", a.Key, n.Data)
			case a.Key == "href" && !strings.HasPrefix(a.Val, "#"):
				t.Errorf("link to %q", a.Val)
			}
		}
	})
	if styles != 1 {
		t.Errorf("%d style elements, want 1", styles)
	}
	var csp string
	for _, m := range find(doc, "meta") {
		if attr(m, "http-equiv") == "Content-Security-Policy" {
			csp = attr(m, "content")
		}
	}
	// The policy allows the page's style sheet, as written, by its hash.
	css := text(find(doc, "style")[0])
	sum := sha256.Sum256([]byte(css))
	want := "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; base-uri 'none'; form-action 'none'"
	if csp != want {
		t.Errorf("content security policy %q, want %q", csp, want)
	}
}

// TestProviderErrorPage: a failed exchange's verdict, in the index and in
// its section, says "http 400" (not the recorded "complete") and what the
// provider said, the real Bedrock 400 body read as the AWS SDKs name its
// exception; a hostile message is shown as escaped text.
func TestProviderErrorPage(t *testing.T) {
	body, err := os.ReadFile("../fixtures/round3/bedrock-error-400-invalid-model-id.body.json")
	if err != nil {
		t.Fatal(err)
	}
	c := &tape.Capture{Name: "errors.ndjson", Header: tape.Header{V: tape.Version, Engine: tape.Engine{Profile: "passthrough"}}}
	for i, x := range []struct {
		status int
		h      tape.Headers
		body   []byte
	}{
		{400, tape.Headers{"content-type": {"application/json"}, "x-amzn-errortype": {"ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"}}, body},
		{500, tape.Headers{"content-type": {"application/json"}}, []byte(`{"error":{"message":"<script>alert(1)</script>\u202e"}}`)},
	} {
		ex := i + 1
		e := &tape.Exchange{Ex: ex, Request: &tape.Request{Ex: ex, Method: "POST", URL: "/model/does-not-exist/invoke-with-response-stream"}}
		for _, s := range []tape.Side{tape.Upstream, tape.Client} {
			sd := e.Side(s)
			sd.Response = &tape.Response{Ex: ex, Side: s, Status: x.status, Headers: x.h}
			sd.Chunks = []tape.Chunk{{Ex: ex, Side: s, T: 1e6, Data: x.body}}
			sd.End = &tape.End{Ex: ex, Side: s, T: 2e6, Outcome: tape.Complete, Bytes: int64(len(x.body))}
		}
		c.Exchanges = append(c.Exchanges, e)
	}
	doc := parse(t, render(t, c, 0))
	v := find(doc, "p", "verdict")
	if len(v) != 2 {
		t.Fatalf("%d verdict lines, want 2", len(v))
	}
	said := "the provider said “ValidationException: The provided model identifier is invalid.”"
	if got := text(v[0]); !strings.Contains(got, "· http 400 ·") || strings.Contains(got, "complete") || !strings.Contains(got, said) {
		t.Errorf("verdict %q: want http 400 and %q", got, said)
	}
	if got := text(v[1]); !strings.Contains(got, "· http 500 ·") || !strings.Contains(got, "<script>alert(1)</script>⟨U+202E⟩") {
		t.Errorf("verdict %q: want http 500 and the message as escaped text", got)
	}
	rows := find(find(doc, "table", "index")[0], "tr")
	if got := text(rows[1]); !strings.Contains(got, "http 400") || strings.Contains(got, "complete") || !strings.Contains(got, said) {
		t.Errorf("index row %q", got)
	}
}

// TestToolsOnlyAnswer: an answer that is only tool calls says so instead
// of showing an empty text box.
func TestToolsOnlyAnswer(t *testing.T) {
	page := string(render(t, loadFixture(t, "openai-responses-tool-then-text.ndjson"), 0))
	if !strings.Contains(page, "No text: the answer is its tool calls.") {
		t.Error("the tools-only answer has no note")
	}
	if strings.Contains(page, `<pre class="text"></pre>`) {
		t.Error("an empty text box is drawn")
	}
}
