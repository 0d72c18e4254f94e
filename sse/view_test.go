package sse

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// parseChunksView is parseChunks through FeedView and CloseView, copying
// each data view into Data inside the callback. Each chunk is fed from one
// reused buffer that is overwritten after FeedView returns, as a proxy's
// read buffer is, so a Parser that kept a view into fed bytes past the
// call would corrupt later events.
func parseChunksView(chunks ...[]byte) []Event {
	var p Parser
	var out []Event
	emit := func(e Event, data []byte) {
		if e.Data != "" {
			panic("FeedView event carries Data")
		}
		e.Data = string(data)
		out = append(out, e)
	}
	var buf []byte
	for _, c := range chunks {
		buf = append(buf[:0], c...)
		p.FeedView(buf, emit)
		for i := range buf {
			buf[i] = 'X'
		}
	}
	p.CloseView(emit)
	return out
}

// TestFeedViewMatchesFeed checks that FeedView delivers the same events as
// Feed, in any split, and keeps no view into fed bytes after it returns.
func TestFeedViewMatchesFeed(t *testing.T) {
	t.Parallel()
	for _, in := range splitCorpus(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			want := parseChunks(in.data)
			if got := parseChunksView(in.data); !reflect.DeepEqual(got, want) {
				t.Fatalf("one chunk differs:\n got %+v\nwant %+v", got, want)
			}
			r := rand.New(rand.NewPCG(uint64(len(in.data)), 11))
			for i := range 10 {
				chunks := splitRandom(in.data, r)
				if got := parseChunksView(chunks...); !reflect.DeepEqual(got, want) {
					t.Fatalf("random split %d (%d chunks) differs:\n got %+v\nwant %+v", i, len(chunks), got, want)
				}
			}
		})
	}
}

// TestFeedSharedData checks Feed's shared-string path (a Feed of at least
// 4 KiB): events with one data line, several, CR and CRLF endings, comments
// and invalid UTF-8 come out as from a byte-by-byte split, and their Data
// survives the caller overwriting the fed buffer.
func TestFeedSharedData(t *testing.T) {
	t.Parallel()
	block := "data: a\r\ndata: b\n\nevent: x\ndata: \xC2\xB0\r\rdata:no-space\n: comment\n\nid: 7\ndata: \xFF\n\ndata\n\n"
	var stream []byte
	for len(stream) < 20<<10 {
		stream = append(stream, block...)
	}
	stream = append(stream, "data: tail"...)
	want := parseChunks(splitEvery(stream, 1)...)
	for _, n := range []int{len(stream), 5000, 4096, 4095} {
		var p Parser
		var got []Event
		emit := func(e Event) { got = append(got, e) }
		buf := make([]byte, 0, n)
		for _, c := range splitEvery(stream, n) {
			buf = append(buf[:0], c...)
			p.Feed(buf, emit)
			for i := range buf {
				buf[i] = 'X'
			}
		}
		p.Close(emit)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Feeds of %d bytes differ from a byte-by-byte split", n)
		}
	}
}
