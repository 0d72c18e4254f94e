package record

import (
	"bytes"
	"testing"

	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// FuzzStreamWatch runs the recorder's watch of a compressed side over any
// body, with its echo guard looking for a secret, as the recorder does:
// each wire read decoded within a small cap, each decoded piece to the
// watch and the guard, the chunks written or withheld. Nothing may panic;
// every wire byte is written or withheld, in order; what was written never
// decodes to the secret; a body that decodes within the cap without the
// secret is written whole, and the watch then says what a watch of the
// plain body says.
func FuzzStreamWatch(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n"), "sk-canary-012345", uint8(1), uint8(7), uint16(1000))
	f.Add([]byte("data: {\"error\":{\"message\":\"bad key sk-canary-012345\"}}\n\n"), "sk-canary-012345", uint8(2), uint8(3), uint16(1000))
	f.Add([]byte("data: "+string(bytes.Repeat([]byte("a"), 300))+"sk-canary-012345\n\n"), "sk-canary-012345", uint8(3), uint8(1), uint16(100))
	codings := []string{"gzip", "br", "zstd", "deflate"}
	f.Fuzz(func(t *testing.T, body []byte, secret string, ci, split uint8, limit uint16) {
		ce := codings[int(ci)%len(codings)]
		wire, err := coding.Encode(body, ce)
		if err != nil {
			t.Fatal(err)
		}
		var secrets []string
		if len(secret) >= tape.MinSecret {
			secrets = []string{secret}
		}
		cap := int64(limit) + 1
		watch := newStreamWatch("text/event-stream", ce, "/v1/chat/completions", coding.NewBudget(cap, 0))
		var written []byte
		var withheld int64
		g := newEchoGuard(watch, secrets, nil, func(c tape.Chunk) {
			if c.Off != int64(len(written)) {
				t.Fatalf("chunk written at %d after %d bytes", c.Off, len(written))
			}
			written = append(written, c.Data...)
		}, func(n int64) { withheld += n })
		n := int(split%64) + 1
		for off := 0; off < len(wire); off += n {
			p := wire[off:min(off+n, len(wire))]
			watch.feed(p)
			g.chunk(tape.Chunk{Side: tape.Upstream, Data: p})
		}
		watch.close()
		note := g.close(tape.Upstream)
		if !bytes.HasPrefix(wire, written) || int64(len(written))+withheld != int64(len(wire)) {
			t.Fatalf("%d bytes written, %d withheld, of %d", len(written), withheld, len(wire))
		}
		dec, _ := coding.Decode(written, ce)
		if secrets != nil && bytes.Contains(dec, []byte(secret)) {
			t.Fatalf("the written chunks decode to the secret (note %q)", note)
		}
		capped := int64(len(body)) > cap
		if (watch.capped() != nil) != capped {
			t.Fatalf("capped %v, the body is %d bytes for a cap of %d", watch.capped(), len(body), cap)
		}
		if capped {
			if note == "" {
				t.Fatal("no note naming the cap")
			}
			return
		}
		if secrets == nil || !bytes.Contains(body, []byte(secret)) && !bytes.Contains(body, []byte(jsonEscape(secret))) {
			if !bytes.Equal(written, wire) || note != "" {
				t.Fatalf("a clean body was not written whole: %d of %d bytes, note %q", len(written), len(wire), note)
			}
		}
		plain := protocol.NewWatch("text/event-stream", "/v1/chat/completions")
		plain.Feed(body)
		plain.Close()
		if watch.events() != plain.Events() || watch.terminal() != plain.Terminal() {
			t.Fatalf("the watch says %d events, terminal %v; of the plain body %d, %v", watch.events(), watch.terminal(), plain.Events(), plain.Terminal())
		}
	})
}

// jsonEscape is s as a JSON string holds it (the Masker looks for both).
func jsonEscape(s string) string {
	b := tape.AppendJSONString(nil, s)
	return string(b[1 : len(b)-1])
}
