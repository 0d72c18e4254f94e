package wsframe

import (
	"bytes"
	"compress/flate"
	"strings"
	"testing"
)

// deflatedFrame is a server text frame carrying payload compressed.
func deflatedFrame(payload []byte) []byte {
	return AppendFrame(nil, Header{Fin: true, Rsv1: true, Opcode: Text}, Deflate(nil, payload))
}

// TestDecodeCaps: a deflate bomb inflates to its per-message cap and no
// further, and a session of bombs each under that cap stops inflating at
// the cap per session; both are problems naming the cap, the messages are
// kept deflated, and the decoder never holds more than the caps.
func TestDecodeCaps(t *testing.T) {
	bomb := deflatedFrame(bytes.Repeat([]byte{'a'}, 5<<20)) // ~5 KB on the wire
	t.Run("message", func(t *testing.T) {
		msgs, problems := Decode(bomb, Options{Deflate: true, MaxMessage: 1 << 20})
		if len(msgs) != 1 || !msgs[0].Deflated || len(msgs[0].Payload) != len(bomb)-4 {
			t.Fatalf("messages %+v", msgs)
		}
		if len(problems) != 1 || problems[0].Cap != 1<<20 || !strings.Contains(problems[0].Msg, "1048576 bytes (the cap per message)") {
			t.Errorf("problems %+v", problems)
		}
	})
	t.Run("session", func(t *testing.T) {
		var stream []byte
		for range 40 {
			stream = append(stream, bomb...)
		}
		var inflated int64
		problems, n := Walk(stream, Options{Deflate: true, NoContextTakeover: true, MaxInflate: 32 << 20}, func(m *Message) {
			if !m.Deflated {
				inflated += int64(len(m.Payload))
			}
		})
		if inflated != 30<<20 || n > 32<<20 {
			t.Errorf("inflated %d bytes kept, %d in all; want 6 messages of 5 MiB within the 32 MiB cap", inflated, n)
		}
		if len(problems) != 1 || problems[0].Cap != 32<<20 || !strings.Contains(problems[0].Msg, "nor any compressed message after it") {
			t.Errorf("problems %+v", problems)
		}
	})
	t.Run("problems", func(t *testing.T) {
		// Unmasked client frames: one problem each.
		stream := bytes.Repeat(AppendFrame(nil, Header{Fin: true, Opcode: Text}, []byte("x")), 1000)
		_, problems := Decode(stream, Options{FromClient: true})
		if len(problems) != MaxProblems+1 || !strings.Contains(problems[MaxProblems].Msg, "800 more problems") {
			t.Errorf("%d problems, last %+v", len(problems), problems[len(problems)-1])
		}
	})
}

// TestInflaterWindow: with context takeover, a message referring back to
// the one before inflates through the window, and not without it; Deflate
// makes a message that refers to nothing before it, so it inflates
// whatever the window holds.
func TestInflaterWindow(t *testing.T) {
	first := []byte(strings.Repeat("the quick brown fox ", 10))
	var b bytes.Buffer
	w, _ := flate.NewWriterDict(&b, flate.BestCompression, first)
	w.Write(first)
	w.Flush()
	second := bytes.TrimSuffix(b.Bytes(), []byte{0, 0, 0xff, 0xff})
	if len(second) > 20 {
		t.Fatalf("the second message (%d bytes) does not refer back", len(second))
	}
	var f Inflater
	if out, err := f.Inflate(nil, Deflate(nil, first), 1<<20); err != nil || !bytes.Equal(out, first) {
		t.Fatalf("%q %v", out, err)
	}
	if out, err := f.Inflate(nil, second, 1<<20); err != nil || !bytes.Equal(out, first) {
		t.Errorf("through the window: %q %v", out, err)
	}
	if out, err := (&Inflater{}).Inflate(nil, second, 1<<20); err == nil {
		t.Errorf("without the window: %q inflated", out)
	}
	if out, err := f.Inflate(nil, Deflate(nil, []byte("jumps")), 1<<20); err != nil || string(out) != "jumps" {
		t.Errorf("%q %v", out, err)
	}
	if _, err := f.Inflate(nil, []byte{0xff, 0xff, 0xff}, 1<<20); err == nil {
		t.Error("garbage inflated")
	}
	if out, err := f.Inflate(nil, second, 1<<20); err == nil {
		t.Errorf("after a message that did not inflate, the window is unknown, but %q inflated", out)
	}
}
