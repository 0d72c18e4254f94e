package tape

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the decoder (it must not panic or loop)
// and round-trips the same bytes as chunk data through AppendChunk and the
// decoder (they must come back exactly).
func FuzzDecode(f *testing.F) {
	file, _ := encodeAll(f)
	f.Add(file, []byte("data: {}\n\n"))
	f.Add([]byte(headerLine+`{"type":"chunk","ex":1,"side":"client","data":"\ud83d\ude42"}`), []byte("€"[:2]))
	f.Add([]byte(headerLine+`{"type":"chunk","ex":1,"side":"client","data_b64":"/w=="}`+"\n{"), []byte{0xff, 0})
	f.Add([]byte(""), []byte("\x00\x1f\"\\\u2028"))
	f.Fuzz(func(t *testing.T, input, data []byte) {
		d := NewDecoder(bytes.NewReader(input), "fuzz.ndjson")
		for i := 0; ; i++ {
			if i > len(input)+2 {
				t.Fatalf("decoder did not stop after %d calls", i)
			}
			_, err := d.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			var lerr *LineError
			if err != nil && !(errors.As(err, &lerr) && d.Header() != nil) {
				break // fatal
			}
		}

		line := AppendHeader(nil, testHeader())
		line = AppendChunk(line, Chunk{Ex: 3, Side: Client, T: 9, Off: 7, Data: data})
		d = NewDecoder(bytes.NewReader(line), "rt.ndjson")
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
		rec, err := d.Next()
		if err != nil {
			t.Fatalf("decode %q: %v", line, err)
		}
		c := rec.Chunk
		if c == nil || c.Ex != 3 || c.Side != Client || c.T != 9 || c.Off != 7 || !bytes.Equal(c.Data, data) {
			t.Fatalf("round trip of %q gave %+v", data, rec)
		}
		// The fallback decoder must agree with the fast path.
		slow, err := decodeKind(KindChunk, line[bytes.IndexByte(line, '\n')+1:])
		if err != nil || !bytes.Equal(slow.Chunk.Data, data) {
			t.Fatalf("encoding/json decodes %q as %+v, %v", data, slow, err)
		}
	})
}
