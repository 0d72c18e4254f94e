package tape

import (
	"bytes"
	"strings"
	"testing"
)

// TestMirrorLine: a passthrough chunk is one line standing for both sides,
// read back as the upstream chunk and then the client chunk, with their
// own times and offsets, the same bytes and both hashes verified, and the
// line is shorter than the two it replaces.
func TestMirrorLine(t *testing.T) {
	t.Parallel()
	chunks := []string{"data: {\"a\":1}\n\n", "data: {\"b\":\"x\\\"y\"}\n\ndata: [DONE]\n\n", ": ping\n\n"}
	record := func(mirror bool) *bytes.Buffer {
		var out bytes.Buffer
		w := NewWriter(&out, WriterOptions{})
		w.Header(testHeader())
		recordExchange(w, 1, chunks, mirror)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return &out
	}
	out := record(true)
	if n := strings.Count(out.String(), `"type":"chunk","ex":1,"side":"client"`); n != 0 {
		t.Errorf("%d client chunk lines, want none: each is in its upstream line\n%s", n, out.String())
	}
	if n := strings.Count(out.String(), `"client":[`); n != len(chunks) {
		t.Errorf("%d lines carry the client chunk, want %d", n, len(chunks))
	}
	d := NewDecoder(bytes.NewReader(out.Bytes()), "mirror.ndjson")
	var got []Chunk
	var lines []int
	for {
		rec, err := d.Next()
		if err != nil {
			break
		}
		if rec.Kind == KindChunk {
			got = append(got, *rec.Chunk)
			lines = append(lines, rec.Line)
		}
	}
	if len(d.Warnings()) != 0 {
		t.Fatalf("warnings: %v", d.Warnings())
	}
	if len(got) != 2*len(chunks) {
		t.Fatalf("%d chunk records, want %d", len(got), 2*len(chunks))
	}
	off := int64(0)
	for i, c := range chunks {
		up, cl := got[2*i], got[2*i+1]
		if up.Side != Upstream || cl.Side != Client || string(up.Data) != c || string(cl.Data) != c ||
			up.T != int64(10+i) || cl.T != int64(11+i) || up.Off != off || cl.Off != off || lines[2*i] != lines[2*i+1] ||
			up.Mirrored || cl.Ref || cl.mirror {
			t.Errorf("pair %d: upstream %+v, client %+v (lines %d, %d)", i, up, cl, lines[2*i], lines[2*i+1])
		}
		off += int64(len(c))
	}
	c, err := Read(bytes.NewReader(out.Bytes()), "mirror.ndjson")
	if err != nil || len(c.Warnings) != 0 {
		t.Fatalf("read: %v %v", err, c.Warnings)
	}
	ex := c.Exchanges[0]
	if ex.Client.End.SHA256 == "" || ex.Client.End.SHA256 != ex.Upstream.End.SHA256 || string(ex.Client.Body()) != strings.Join(chunks, "") {
		t.Errorf("client body %q, ends %+v %+v", ex.Client.Body(), ex.Upstream.End, ex.Client.End)
	}
	// One line instead of an upstream line and a reference: a reference
	// line is ~80 bytes, the "client" field ~20.
	two := record(false)
	if refs := strings.Count(two.String(), `,"ref":`); refs != len(chunks) {
		t.Fatalf("%d references in the capture without mirror lines, want %d", refs, len(chunks))
	}
	if saved := two.Len() - out.Len(); saved < 50*len(chunks) {
		t.Errorf("mirror lines saved %d bytes over %d chunks (%d with references, %d mirrored), want at least 50 a chunk", saved, len(chunks), two.Len(), out.Len())
	}
}

// TestMirrorDecodeErrors: a "client" pair on a client line, of the wrong
// shape, or with a negative offset is an error naming the line.
func TestMirrorDecodeErrors(t *testing.T) {
	t.Parallel()
	head := `{"type":"capture","v":3,"seam":"t","engine":{"profile":"passthrough"}}` + "\n"
	for _, tc := range []struct{ line, want string }{
		{`{"type":"chunk","ex":1,"side":"client","t":1,"off":0,"data":"x","client":[2,0]}`, `only an upstream chunk may carry`},
		{`{"type":"chunk","ex":1,"side":"upstream","t":1,"off":0,"data":"x","client":[2]}`, `"client" has 1 numbers`},
		{`{"type":"chunk","ex":1,"side":"upstream","t":1,"off":0,"data":"x","client":[2,0,3]}`, `"client" has 3 numbers`},
		{`{"type":"chunk","ex":1,"side":"upstream","t":1,"off":0,"data":"x","client":[2,-1]}`, `must not be negative`},
		{`{"type":"chunk","ex":1,"side":"upstream","t":1,"off":0,"data":"x","client":"no"}`, `client`},
	} {
		d := NewDecoder(strings.NewReader(head+tc.line+"\n"), "bad.ndjson")
		_, err := d.Next() // the header
		if err == nil {
			_, err = d.Next()
		}
		if err == nil || !strings.Contains(err.Error(), "bad.ndjson:2:") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want bad.ndjson:2: and %q", tc.line, err, tc.want)
		}
	}
}

// TestMirrorAtOtherOffsets: a mirror line after the sides have parted (the
// client got other bytes before) keeps each side's own offset, and both
// sides read back whole with their hashes verified.
func TestMirrorAtOtherOffsets(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := NewWriter(&out, WriterOptions{})
	w.Header(testHeader())
	x := w.Exchange(1)
	x.Chunk(Upstream, 1, []byte("data: {\"a\":1}\n\n"))
	x.ClientChunk(2, []byte("data: {}\n\n"), -1) // the engine changed it
	x.Mirror(3, 4, []byte("data: {\"b\":2}\n\n"))
	x.End(Upstream, 5, Complete, "")
	x.End(Client, 6, Complete, "")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"off":15,"sse":[{"b":2}],"client":[4,10]`) {
		t.Errorf("want the mirror line at upstream offset 15 and client offset 10:\n%s", out.String())
	}
	c, err := Read(bytes.NewReader(out.Bytes()), "parted.ndjson")
	if err != nil || len(c.Warnings) != 0 {
		t.Fatalf("read: %v %v", err, c.Warnings)
	}
	ex := c.Exchanges[0]
	if string(ex.Upstream.Body()) != "data: {\"a\":1}\n\ndata: {\"b\":2}\n\n" || string(ex.Client.Body()) != "data: {}\n\ndata: {\"b\":2}\n\n" ||
		ex.Client.End.SHA256 == "" || ex.Client.End.SHA256 == ex.Upstream.End.SHA256 {
		t.Errorf("upstream %q, client %q, ends %+v %+v", ex.Upstream.Body(), ex.Client.Body(), ex.Upstream.End, ex.Client.End)
	}
}
