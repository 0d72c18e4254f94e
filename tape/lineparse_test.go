package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// checkLineFast fails t when parseLineFast reads line and the Decoder's
// encoding/json path (decodeKind, then its checks) reads it otherwise:
// another record, or an error where the fast path's record passes the
// same checks.
func checkLineFast(t testing.TB, line []byte) {
	t.Helper()
	fast, ok := parseLineFast(line)
	if !ok {
		return
	}
	slow, err := decodeKind(fast.Kind, line)
	if cerr := checkRecord(fast); cerr != nil {
		if err == nil {
			t.Fatalf("the fast path reads %s and the record is refused (%v), encoding/json reads it", line, cerr)
		}
		return
	}
	if err != nil {
		t.Fatalf("the fast path reads %s, encoding/json fails: %v", line, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s:\nfast path     %s\nencoding/json %s", line, dump(fast), dump(slow))
	}
}

func dump(r Record) string {
	switch {
	case r.Request != nil:
		return fmt.Sprintf("%+v body %q", *r.Request, r.Request.Body)
	case r.Response != nil:
		return fmt.Sprintf("%+v", *r.Response)
	case r.End != nil:
		return fmt.Sprintf("%+v", *r.End)
	case r.Note != nil:
		return fmt.Sprintf("%+v", *r.Note)
	}
	return fmt.Sprintf("%+v", r)
}

// lineCases are request, response, end and note lines in shapes the
// encoder writes and in shapes it never writes.
var lineCases = []string{
	`{"type":"request","ex":1,"t":5,"method":"POST","url":"/v1/chat/completions","headers":{"content-type":["application/json"],"authorization":["[redacted]"]},"body":"{\"model\":\"gpt\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\\n\\\"there\\\" \u00e9\ud83d\ude42\"}]}"}`,
	`{"type":"request","ex":2,"side":"upstream","t":6,"method":"POST","scheme":"https","host":"api.anthropic.com","url":"/v1/x","headers":{},"body_b64":"/wBh","body_truncated":true,"paired":"content"}`,
	`{"type":"request","ex":2,"t":6,"method":"GET","url":"/","headers":{"x":[]},"body_truncated":false}`,
	`{ "type" : "request" , "ex" : 3 , "headers" : { "a" : [ "1" , "2" ] , "b" : [ ] } , "url":"\/x" }`,
	`{"type":"request","ex":1,"body":"a","body_b64":"YQ=="}`,
	`{"type":"request","ex":1,"body":"lone \ud800"}`,
	`{"type":"request","ex":1,"body":"\x"}`,
	`{"type":"request","ex":1,"body":null}`,
	`{"type":"request","ex":1,"headers":null}`,
	`{"type":"request","ex":1,"headers":{"a":null}}`,
	`{"type":"request","ex":1,"headers":{"a":["1",]}}`,
	`{"type":"request","ex":1,"headers":{"a":["1"],"a":["2"]}}`,
	`{"type":"request","ex":1,"headers":{"\u0061":["\u0062"]}}`,
	`{"type":"request","ex":1,"Url":"/x"}`,
	`{"type":"request","ex":1,"url":"/x","url":"/y"}`,
	`{"type":"request","ex":0,"url":"/x"}`,
	`{"type":"request","ex":1,"side":"client","url":"/x"}`,
	`{"type":"request","ex":1.0,"url":"/x"}`,
	`{"type":"request","ex":1,"extra":{"a":[1,2,{"b":null}]},"n":-1.5e3}`,
	`{"type":"request","ex":1,"body_truncated":1}`,
	`{"type":"request","ex":1,"body_b64":"!!"}`,
	`{"type":"request","ex":1} x`,
	`{"ex":1,"type":"request"}`,
	`{"type":"response","ex":1,"side":"upstream","t":10,"status":200,"headers":{"content-type":["text/event-stream"],"x-multi":["a","b"]}}`,
	`{"type":"response","ex":1,"side":"sideways","t":10,"status":200}`,
	`{"type":"response","ex":1,"side":"client","status":99999999999999999999}`,
	`{"type":"end","ex":1,"side":"upstream","t":20,"outcome":"upstream_error","bytes":296,"error":"read: connection reset by peer"}`,
	`{"type":"end","ex":1,"side":"client","t":21,"outcome":"complete","bytes":9,"sha256":"ab","unrecorded":3}`,
	`{"type":"end","ex":1,"side":"client","t":-0,"outcome":"complete","bytes":-0}`,
	`{"type":"note","ex":1,"t":30,"text":"tab\there \"quoted\" ✓"}`,
	`{"type":"note","ex":0,"t":30,"text":""}`,
	`{"type":"note","ex":-1,"t":30,"text":""}`,
	`{"type":"note","ex":1,"side":"upstream","text":"x"}`,
	"{\"type\":\"note\",\"ex\":1,\"text\":\"\xff\"}",
	`{"type":"capture","v":3}`,
	`{"type":"chunk","ex":1,"side":"client","data":"x"}`,
}

// TestLineFastPathMatchesFallback: where parseLineFast reads a line,
// encoding/json reads the same record; the encoder's lines are read by the
// fast path.
func TestLineFastPathMatchesFallback(t *testing.T) {
	t.Parallel()
	for _, line := range lineCases {
		checkLineFast(t, []byte(line))
	}
	file, _ := encodeAll(t)
	for line := range bytes.SplitSeq(bytes.TrimSuffix(file, []byte("\n")), []byte("\n")) {
		if kind := lineKind(line); kind == typeRequest || kind == typeResponse || kind == typeEnd || kind == typeNote {
			if _, ok := parseLineFast(line); !ok {
				t.Errorf("the fast path does not read the encoder's %s", line)
			}
		}
		checkLineFast(t, line)
	}
}

// lineKind returns the type an encoded line starts with.
func lineKind(line []byte) string {
	rest, ok := bytes.CutPrefix(line, []byte(`{"type":"`))
	if !ok {
		return ""
	}
	k, _, _ := bytes.Cut(rest, []byte(`"`))
	return string(k)
}

// FuzzLineFast: for any line, parseLineFast reads what encoding/json reads,
// or leaves the line to it.
func FuzzLineFast(f *testing.F) {
	for _, l := range lineCases {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkLineFast(t, line) })
}

// BenchmarkLine is the comparison behind parseLineFast: the non-chunk lines
// of an agent's exchange (a request carrying a 24 KB history, its two
// responses and ends), each decoded by the fast path and by the Decoder's
// encoding/json path (the "type" probe, then decodeKind).
func BenchmarkLine(b *testing.B) {
	var hist bytes.Buffer
	hist.WriteString(`{"model":"gpt-4o","stream":true,"messages":[{"role":"system","content":"You are a careful coding agent. Read the code before you change it."}`)
	for i := 0; hist.Len() < 24<<10; i++ {
		fmt.Fprintf(&hist, `,{"role":"tool","tool_call_id":"call_%d","content":"\tif err := step%d(ctx, \"naïve café\"); err != nil {\n\t\treturn fmt.Errorf(\"step: %%w\", err)\n\t}\n"}`, i, i)
	}
	hist.WriteString(`]}`)
	var lines [][]byte
	var buf []byte
	buf = AppendRequest(buf, Request{Ex: 7, T: 5e9, Method: "POST", URL: "/v1/chat/completions", Body: hist.Bytes(),
		Headers: Headers{"authorization": {Redacted}, "content-type": {"application/json"}, "user-agent": {"OpenAI/Python 1.99.0"}}})
	for _, s := range []Side{Upstream, Client} {
		buf = AppendResponse(buf, Response{Ex: 7, Side: s, T: 6e9, Status: 200, Headers: Headers{"content-type": {"text/event-stream"}, "x-request-id": {"req_0af3"}}})
		buf = AppendEnd(buf, End{Ex: 7, Side: s, T: 7e9, Outcome: Complete, Bytes: 52133, SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"})
	}
	size := 0
	for line := range bytes.SplitSeq(bytes.TrimSuffix(buf, []byte("\n")), []byte("\n")) {
		lines = append(lines, line)
		size += len(line)
	}
	b.Run("decoder=fast", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, line := range lines {
				if _, ok := parseLineFast(line); !ok {
					b.Fatalf("the fast path does not read %s", line)
				}
			}
		}
	})
	b.Run("decoder=encoding-json", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, line := range lines {
				var probe struct {
					Type *string `json:"type"`
				}
				if err := json.Unmarshal(line, &probe); err != nil {
					b.Fatal(err)
				}
				if _, err := decodeKind(Kind(*probe.Type), line); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
