package inspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// TestStreamedReportMatchesWhole: inspecting a capture exchange by
// exchange (tape.ExchangeReader, Inspector, JSONWriter) gives the report
// Inspect gives on the whole capture, byte for byte as JSON, which is
// what encoding/json writes for the whole report, and what WriteJSON
// writes (sessions included).
func TestStreamedReportMatchesWhole(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../fixtures/*.ndjson")
	sessions := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := tape.Read(bytes.NewReader(b), f)
		if err != nil {
			t.Fatal(err)
		}
		whole := Inspect(c, Options{})
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(whole); err != nil {
			t.Fatal(err)
		}

		r := tape.NewExchangeReader(bytes.NewReader(b), f)
		h, err := r.Header()
		if err != nil {
			t.Fatal(err)
		}
		in := NewInspector(f, *h, Options{})
		var got bytes.Buffer
		jw := NewJSONWriter(&got, f)
		for {
			x, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := jw.Exchange(in.Exchange(x)); err != nil {
				t.Fatal(err)
			}
		}
		jw.SetSessions(in.Sessions())
		if err := jw.Close(whole.Warnings); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: streamed report differs from the whole one (%d vs %d bytes)", f, got.Len(), want.Len())
		}
		var written bytes.Buffer
		if err := WriteJSON(&written, whole); err != nil {
			t.Fatal(err)
		}
		if written.String() != want.String() {
			t.Errorf("%s: WriteJSON differs from the whole report (%d vs %d bytes)", f, written.Len(), want.Len())
		}
		sessions += len(whole.Sessions)
	}
	if sessions == 0 {
		t.Error("no fixture forms a session: the sessions are not compared")
	}
	var empty bytes.Buffer
	if err := WriteJSON(&empty, &Report{Capture: "e", Warnings: []string{"x:3: torn"}}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema    int               `json:"schema"`
		Exchanges []json.RawMessage `json:"exchanges"`
		Warnings  []string          `json:"warnings"`
	}
	if err := json.Unmarshal(empty.Bytes(), &doc); err != nil || doc.Exchanges == nil || len(doc.Warnings) != 1 {
		t.Errorf("empty report %s: %v", empty.String(), err)
	}
}

// TestFindingsCapped: a stream that repeats one fault on every event (200
// events after [DONE]) lists the first maxPerID of them and one finding
// counting the rest, so a hostile stream cannot grow the report (and the
// memory holding it) with every event.
func TestFindingsCapped(t *testing.T) {
	t.Parallel()
	body := cc(chatRole) + ccf(`{"content":"Hi"}`, "stop") + done + strings.Repeat(cc(`{"content":"x"}`), 200)
	fs := exInput{client: body}.findings(t)
	n, summary := 0, ""
	for _, f := range fs {
		if f.ID == "stream.after-terminal" {
			n++
			if strings.Contains(f.Message, "more like") {
				summary = f.Message
			}
		}
	}
	if n != protocol.MaxPerID+1 || summary != "150 more like the 50 above on the client side, not listed" {
		t.Errorf("%d stream.after-terminal findings, summary %q", n, summary)
	}
}

// indentedByEncoder is what marshalIndent must match: a json.Encoder's
// indented output, without its trailing newline.
func indentedByEncoder(t testing.TB, v any, prefix, indent string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestMarshalIndentSameAsEncoder: marshalIndent writes every fixture's
// report (and its sessions) exactly as json.Encoder's indentation does.
func TestMarshalIndentSameAsEncoder(t *testing.T) {
	for _, c := range pipelineCaptures(t) {
		rep := Inspect(c, Options{})
		for _, v := range []any{rep, rep.Exchanges, rep.Sessions, c.Name} {
			got, err := marshalIndent(v, "    ")
			if err != nil {
				t.Fatal(err)
			}
			if want := indentedByEncoder(t, v, "    ", "  "); !bytes.Equal(got, want) {
				t.Fatalf("%s: %s", c.Name, firstDiff(string(want), string(got)))
			}
		}
	}
}
