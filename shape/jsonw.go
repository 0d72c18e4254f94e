package shape

import "strconv"

// frames collects the client frames produced by one Push or Close in a single
// arena: frame i is buf[ends[i-1]:ends[i]]. The arena is reused, so frames are
// valid until the next call, as the Engine contract allows.
type frames struct {
	buf  []byte
	ends []int
}

func (f *frames) reset() {
	f.buf = f.buf[:0]
	f.ends = f.ends[:0]
}

// end closes the frame written since the previous end.
func (f *frames) end() { f.ends = append(f.ends, len(f.buf)) }

// appendTo appends the frames to dst.
func (f *frames) appendTo(dst [][]byte) [][]byte {
	start := 0
	for _, e := range f.ends {
		if e > start {
			dst = append(dst, f.buf[start:e:e])
		}
		start = e
	}
	return dst
}

func appendInt(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }

// appendRawOr appends raw JSON, or def when raw is empty.
func appendRawOr(dst []byte, raw, def string) []byte {
	if raw == "" {
		return append(dst, def...)
	}
	return append(dst, raw...)
}
