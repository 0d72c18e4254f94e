package framing

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// vectors is the repository's copy of the AWS event-stream test vectors
// (see fixtures/README.md).
const vectors = "../fixtures/providers/bedrock-eventstream-vectors"

// headerJSON renders an event-stream header as the vectors' decoded files
// write it: its type code and a JSON value (byte arrays, strings and UUIDs
// in base64, timestamps in milliseconds).
func headerJSON(t *testing.T, h eventstream.Header) (int, any) {
	t.Helper()
	switch v := h.Value.(type) {
	case eventstream.BoolValue:
		if v {
			return 0, true
		}
		return 1, false
	case eventstream.Int8Value:
		return 2, float64(v)
	case eventstream.Int16Value:
		return 3, float64(v)
	case eventstream.Int32Value:
		return 4, float64(v)
	case eventstream.Int64Value:
		return 5, float64(v)
	case eventstream.BytesValue:
		return 6, base64.StdEncoding.EncodeToString(v)
	case eventstream.StringValue:
		return 7, base64.StdEncoding.EncodeToString([]byte(v))
	case eventstream.TimestampValue:
		return 8, float64(time.Time(v).UnixMilli())
	case eventstream.UUIDValue:
		return 9, base64.StdEncoding.EncodeToString(v[:])
	}
	t.Fatalf("header %s: unexpected value type %T", h.Name, h.Value)
	return 0, nil
}

type parsed struct {
	frames   []Frame
	data     [][]byte
	headers  []eventstream.Headers // of event-stream frames
	problems []Problem
}

// parseAll feeds body to a parser of kind in pieces of at most n bytes (all
// at once when n <= 0) and collects what it yields.
func parseAll(kind Kind, body []byte, n int) parsed {
	var out parsed
	p := New(kind, func(pr Problem) { out.problems = append(out.problems, pr) })
	emit := func(f Frame, d []byte) {
		if kind == EventStream {
			out.headers = append(out.headers, f.Headers())
		}
		f.headers = nil // a view, valid only now
		out.frames = append(out.frames, f)
		out.data = append(out.data, append([]byte(nil), d...))
	}
	if n <= 0 {
		n = len(body) + 1
	}
	for off := 0; off < len(body); off += n {
		p.Feed(body[off:min(off+n, len(body))], emit)
	}
	p.Close(emit)
	return out
}

// TestEventStreamVectors decodes the 18 AWS event-stream vectors: each
// positive one gives one message with exactly the expected lengths, headers
// (every type code 0–9) and payload, however the bytes are split; each
// negative one gives no message and one corrupt-frame problem naming the
// checksum the vector breaks.
func TestEventStreamVectors(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"positive", "negative"} {
		files, err := filepath.Glob(filepath.Join(vectors, "encoded", kind, "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no %s vectors in %s: %v", kind, vectors, err)
		}
		for _, f := range files {
			name := filepath.Base(f)
			t.Run(kind+"/"+name, func(t *testing.T) {
				t.Parallel()
				enc, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				dec, err := os.ReadFile(filepath.Join(vectors, "decoded", kind, name))
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range []int{0, 1, 5, 13} {
					got := parseAll(EventStream, enc, n)
					if kind == "negative" {
						checkNegative(t, string(dec), got)
						continue
					}
					checkPositive(t, enc, dec, got)
				}
			})
		}
	}
}

func checkPositive(t *testing.T, enc, dec []byte, got parsed) {
	t.Helper()
	var want struct {
		TotalLength   int `json:"total_length"`
		HeadersLength int `json:"headers_length"`
		Headers       []struct {
			Name  string `json:"name"`
			Type  int    `json:"type"`
			Value any    `json:"value"`
		} `json:"headers"`
		Payload string `json:"payload"`
	}
	if err := json.Unmarshal(dec, &want); err != nil {
		t.Fatal(err)
	}
	if len(got.problems) != 0 || len(got.frames) != 1 {
		t.Fatalf("%d frames, problems %+v; want one message and no problem", len(got.frames), got.problems)
	}
	f := got.frames[0]
	if f.Start != 0 || f.End != int64(want.TotalLength) || len(enc) != want.TotalLength || !f.Terminated {
		t.Errorf("frame %d–%d (terminated %v), want 0–%d", f.Start, f.End, f.Terminated, want.TotalLength)
	}
	hs := got.headers[0]
	if len(hs) != len(want.Headers) {
		t.Fatalf("%d headers, want %d", len(hs), len(want.Headers))
	}
	for i, h := range hs {
		typ, val := headerJSON(t, h)
		w := want.Headers[i]
		if h.Name != w.Name || typ != w.Type || val != w.Value {
			t.Errorf("header %d = %s type %d %v, want %s type %d %v", i, h.Name, typ, val, w.Name, w.Type, w.Value)
		}
	}
	payload, _ := base64.StdEncoding.DecodeString(want.Payload)
	if !bytes.Equal(got.data[0], payload) {
		t.Errorf("payload %q, want %q", got.data[0], payload)
	}
	if hdr := 12 + want.HeadersLength; !bytes.Equal(enc[hdr:hdr+len(payload)], got.data[0]) {
		t.Errorf("payload is not the bytes after the headers")
	}
}

func checkNegative(t *testing.T, wantErr string, got parsed) {
	t.Helper()
	if len(got.frames) != 0 {
		t.Fatalf("a corrupt vector gave %d frames", len(got.frames))
	}
	if len(got.problems) != 1 || got.problems[0].Kind != Corrupt || got.problems[0].Off != 0 {
		t.Fatalf("problems %+v, want one corrupt frame at 0", got.problems)
	}
	msg := strings.ToLower(got.problems[0].Msg)
	switch {
	case strings.HasPrefix(wantErr, "Prelude checksum"):
		if !strings.Contains(msg, "prelude") {
			t.Errorf("problem %q does not name the prelude (want %q)", msg, wantErr)
		}
	case strings.HasPrefix(wantErr, "Message checksum"):
		if !strings.Contains(msg, "message crc mismatch") {
			t.Errorf("problem %q does not name the message CRC (want %q)", msg, wantErr)
		}
	default:
		t.Fatalf("unexpected decoded vector %q", wantErr)
	}
}
