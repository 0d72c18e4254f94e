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
	f.Add([]byte(headerLine+`{"type":"chunk","ex":1,"side":"upstream","t":3,"off":0,"sse":[{"a":1}],"client":[ 4 , 0 ]}`+"\n"+`{"type":"chunk","ex":1,"side":"upstream","off":9,"data":"x","client":[5,9]}`), []byte("data: {}\n\n"))
	f.Add([]byte(headerLine+`{"type":"chunk","ex":1,"side":"client","sse":[ "a\n" , {"b":[1,{}]},[]]}`+"\n"+`{"type":"chunk","Ex":1,"side":"client","data":"x"}`), []byte(openAIChunk))
	f.Fuzz(func(t *testing.T, input, data []byte) {
		// Where the fast path reads a line, encoding/json reads the same.
		for line := range bytes.SplitSeq(input, []byte("\n")) {
			line = bytes.TrimSpace(line)
			fast, ok := parseChunkFast(line)
			if !ok {
				continue
			}
			slow, err := decodeKind(KindChunk, line)
			if cerr := checkChunk(fast); cerr != nil {
				// The decoder refuses what the fast path read: so must
				// encoding/json's path.
				if err == nil {
					t.Fatalf("the fast path reads %s and the chunk is refused (%v), encoding/json reads it", line, cerr)
				}
				continue
			}
			if err != nil {
				t.Fatalf("the fast path reads %s, encoding/json fails: %v", line, err)
			}
			if s := slow.Chunk; s.Ex != fast.Ex || s.Side != fast.Side || s.T != fast.T || s.Off != fast.Off || !bytes.Equal(s.Data, fast.Data) ||
				s.Ref != fast.Ref || s.RefOff != fast.RefOff || s.refLen != fast.refLen {
				t.Fatalf("%s: fast path %+v, encoding/json %+v", line, fast, s)
			}
		}
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

// FuzzExchangeReader reads arbitrary bytes with the ExchangeReader (it must
// not panic or loop) and checks it against Read: the same fatal error, and
// for every exchange the same chunks in the same order, continuations
// included, so streaming never loses or reorders a byte.
func FuzzExchangeReader(f *testing.F) {
	file, _ := encodeAll(f)
	f.Add(file)
	f.Add(newCapLines("passthrough").whole(1, 10).whole(2, 20).note(1, "late").b)
	f.Add(newCapLines("external").req(1, 1).resp(1, Client, 5).chunk(1, Client, 6, 0, "x").end(1, Client, 7, 1).
		upReq(1, 2).resp(1, Upstream, 3).chunk(1, Upstream, 4, 100, "x").end(1, Upstream, 2, 9).b)
	f.Add(newCapLines("passthrough").req(1, 0).resp(1, Upstream, 0).chunk(1, Upstream, 0, 0, "a").end(1, Upstream, 0, 1).req(2, 0).req(1, 0).b)
	f.Add([]byte(headerLine + `{"type":"chunk","ex":2,"side":"client","t":-1,"off":-0,"data":"x"}` + "\n{"))
	f.Fuzz(func(t *testing.T, input []byte) {
		whole, werr := Read(bytes.NewReader(input), "fuzz")
		r := NewExchangeReader(bytes.NewReader(input), "fuzz")
		chunks := map[int][]Chunk{}
		var serr error
		for i := 0; ; i++ {
			if i > len(input)+2 {
				t.Fatalf("reader did not stop after %d calls", i)
			}
			x, err := r.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					serr = err
				}
				break
			}
			if x.Continued && chunks[x.Ex] == nil && len(x.Upstream.Chunks)+len(x.Client.Chunks) > 0 {
				// A continuation of an exchange whose first part had no chunks.
				chunks[x.Ex] = []Chunk{}
			}
			chunks[x.Ex] = append(append(chunks[x.Ex], x.Upstream.Chunks...), x.Client.Chunks...)
		}
		if (werr == nil) != (serr == nil) || werr != nil && werr.Error() != serr.Error() {
			t.Fatalf("Read error %v, ExchangeReader error %v", werr, serr)
		}
		if werr != nil {
			return
		}
		for _, x := range whole.Exchanges {
			var want []Chunk
			for _, c := range append(append([]Chunk(nil), x.Upstream.Chunks...), x.Client.Chunks...) {
				want = append(want, c)
			}
			got := chunks[x.Ex]
			// The streamed order is upstream then client per part; compare
			// per side in file order.
			for _, s := range []Side{Upstream, Client} {
				var g, w []Chunk
				for _, c := range got {
					if c.Side == s {
						g = append(g, c)
					}
				}
				for _, c := range want {
					if c.Side == s {
						w = append(w, c)
					}
				}
				if len(g) != len(w) {
					t.Fatalf("exchange %d %s: %d chunks streamed, %d read", x.Ex, s, len(g), len(w))
				}
				for i := range g {
					if g[i].Off != w[i].Off || g[i].T != w[i].T || !bytes.Equal(g[i].Data, w[i].Data) {
						t.Fatalf("exchange %d %s chunk %d: streamed %+v, read %+v", x.Ex, s, i, g[i], w[i])
					}
				}
			}
			delete(chunks, x.Ex)
		}
		if len(chunks) != 0 {
			t.Fatalf("streamed exchanges Read does not have: %v", chunks)
		}
	})
}
