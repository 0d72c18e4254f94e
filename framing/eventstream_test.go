package framing

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// checkAgainstSDK decodes body with the AWS SDK's eventstream decoder,
// message after message from the start, and checks that the parser yields
// the same messages (headers, payload, position) up to the first one the
// SDK refuses, and reports a problem where the SDK stops on an error. The
// SDK cannot resynchronise, so what follows its first error is the
// parser's alone.
func checkAgainstSDK(t *testing.T, body []byte) {
	t.Helper()
	got := parseAll(EventStream, body, 0)
	dec := eventstream.NewDecoder()
	r := bytes.NewReader(body)
	for i := 0; ; i++ {
		at := int64(len(body) - r.Len())
		if r.Len() == 0 {
			if i != len(got.frames) {
				t.Fatalf("the SDK read %d messages, the parser %d", i, len(got.frames))
			}
			return
		}
		msg, err := dec.Decode(r, nil)
		if err != nil {
			// The SDK stops here: the parser reports a problem at this
			// offset, after as many messages.
			if i > len(got.frames) || (i < len(got.frames) && got.frames[i].Start == at) {
				t.Fatalf("the SDK fails message %d at %d (%v), the parser reads it: %+v", i, at, err, got.frames[i])
			}
			for _, p := range got.problems {
				if p.Off == at {
					return
				}
			}
			t.Fatalf("the SDK fails at %d (%v); parser problems %+v", at, err, got.problems)
		}
		if i >= len(got.frames) {
			t.Fatalf("the SDK reads message %d at %d, the parser has %d frames", i, at, len(got.frames))
		}
		f := got.frames[i]
		if f.Start != at || f.End != int64(len(body)-r.Len()) {
			t.Fatalf("message %d: parser %d–%d, SDK %d–%d", i, f.Start, f.End, at, len(body)-r.Len())
		}
		hs := got.headers[i]
		if len(hs) == 0 {
			hs = nil
		}
		if !reflect.DeepEqual(hs, msg.Headers) && !(len(hs) == 0 && len(msg.Headers) == 0) {
			t.Fatalf("message %d headers:\n parser %v\n SDK    %v", i, hs, msg.Headers)
		}
		if !bytes.Equal(got.data[i], msg.Payload) {
			t.Fatalf("message %d payload: parser %q, SDK %q", i, got.data[i], msg.Payload)
		}
	}
}

// TestEventStreamMatchesSDK: on every recorded Bedrock body and AWS vector,
// whole, cut and with a flipped byte, the parser reads what the AWS SDK's
// decoder reads.
func TestEventStreamMatchesSDK(t *testing.T) {
	t.Parallel()
	var files []string
	for _, g := range []string{"bedrock/*.eventstream", "bedrock-eventstream-vectors/encoded/*/*"} {
		m, _ := filepath.Glob(filepath.Join(providers, g))
		files = append(files, m...)
	}
	if len(files) != 15 {
		t.Fatalf("%d event-stream bodies, want 15", len(files))
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstSDK(t, body)
		checkAgainstSDK(t, body[:len(body)*2/3])
		for _, at := range []int{4, 14, len(body) / 2, len(body) - 2} {
			if at < len(body) {
				bad := append([]byte(nil), body...)
				bad[at] ^= 0x40
				checkAgainstSDK(t, bad)
			}
		}
	}
}
