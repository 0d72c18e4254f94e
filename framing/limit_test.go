package framing

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// parseLimited is parseAll with a cap of limit bytes on a frame.
func parseLimited(kind Kind, body []byte, n, limit int) parsed {
	var out parsed
	p := newParser(kind, func(pr Problem) { out.problems = append(out.problems, pr) }, limit)
	emit := func(f Frame, d []byte) {
		f.headers = nil
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

// checkLimited checks a parse with a cap: it does not depend on the
// split, no frame passes the cap, every frame is one the uncapped parse
// gives, and every frame of the uncapped parse within the cap is there.
func checkLimited(t *testing.T, kind Kind, body []byte, limit int) parsed {
	t.Helper()
	whole := parseLimited(kind, body, 0, limit)
	for _, n := range []int{1, 3, 64} {
		if got := parseLimited(kind, body, n, limit); !reflect.DeepEqual(got, whole) {
			t.Fatalf("cap %d, split into %d-byte reads:\n got %+v\nwant %+v", limit, n, got, whole)
		}
	}
	free := parseAll(kind, body, 0)
	j := 0
	for i, f := range free.frames {
		n := f.End - f.Start
		if kind == NDJSON && f.End < int64(len(body)) && body[f.End] == '\r' {
			n++ // the line's CR counts toward the cap
		}
		if n > int64(limit) {
			continue
		}
		if j >= len(whole.frames) || !reflect.DeepEqual(whole.frames[j], f) || !bytes.Equal(whole.data[j], free.data[i]) {
			t.Fatalf("cap %d: frame %d (%q) of the uncapped parse is missing", limit, i, free.data[i])
		}
		j++
	}
	if j != len(whole.frames) {
		t.Fatalf("cap %d: %d frames, the uncapped parse has %d within the cap", limit, len(whole.frames), j)
	}
	return whole
}

// TestFrameCap: a line or an element longer than the cap is skipped and
// reported, naming its size and the cap; the frames around it are whole.
func TestFrameCap(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 40)
	nd := checkLimited(t, NDJSON, []byte(`{"a":1}`+"\n"+`{"b":"`+long+`"}`+"\n"+`{"c":3}`+"\n"+`{"d":"`+long), 16)
	if len(nd.frames) != 2 || string(nd.data[1]) != `{"c":3}` || len(nd.problems) != 2 ||
		!strings.Contains(nd.problems[0].Msg, "NDJSON line of 48 bytes is longer than seam's cap of 16 bytes") || nd.problems[0].Off != 8 {
		t.Fatalf("ndjson: %q %+v", nd.data, nd.problems)
	}
	arr := checkLimited(t, JSONArray, []byte(`[{"a":1},{"b":"`+long+`"},{"c":3},{"d":"`+long), 16)
	if len(arr.frames) != 2 || string(arr.data[1]) != `{"c":3}` || len(arr.problems) != 3 ||
		!strings.Contains(arr.problems[0].Msg, "array element 1 of 48 bytes") {
		t.Fatalf("array: %q %+v", arr.data, arr.problems)
	}
	// A line that never ends holds at most the cap.
	p := newParser(NDJSON, nil, 1<<20).(*ndjsonParser)
	piece := bytes.Repeat([]byte("a"), 32<<10)
	for range 128 {
		p.Feed(piece, func(Frame, []byte) {})
		if cap(p.carry) > 2<<20 {
			t.Fatalf("ndjson carry holds %d bytes", cap(p.carry))
		}
	}
	a := newParser(JSONArray, nil, 1<<20).(*arrayParser)
	a.Feed([]byte(`["`), func(Frame, []byte) {})
	for range 128 {
		a.Feed(piece, func(Frame, []byte) {})
		if cap(a.carry) > 2<<20 {
			t.Fatalf("array carry holds %d bytes", cap(a.carry))
		}
	}
}

// FuzzFrameCap checks checkLimited's invariants on any body, for NDJSON
// and JSON arrays and a cap of 1 to 32 bytes.
func FuzzFrameCap(f *testing.F) {
	f.Add([]byte("{\"a\":1}\r\n\n{\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbb\":2}\n{"), uint8(10), false)
	f.Add([]byte(`[{"a":"]\"}"},[1,2,3,4,5,6,7,8,9,10,11,12],"x"] y`), uint8(8), true)
	f.Fuzz(func(t *testing.T, b []byte, limit uint8, array bool) {
		kind := NDJSON
		if array {
			kind = JSONArray
		}
		checkLimited(t, kind, b, int(limit%32)+1)
	})
}
