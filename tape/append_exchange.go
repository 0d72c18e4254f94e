package tape

// AppendExchange appends every line of x to dst in the order a capture
// rewritten by seam holds them (its requests, then each side's response,
// chunks and end, then its notes) and returns the extended buffer.
func AppendExchange(dst []byte, x *Exchange) []byte {
	for _, r := range []*Request{x.Request, x.UpstreamRequest} {
		if r != nil {
			dst = AppendRequest(dst, *r)
		}
	}
	for _, s := range []Side{Upstream, Client} {
		sd := x.Side(s)
		if sd.Response != nil {
			dst = AppendResponse(dst, *sd.Response)
		}
		for _, c := range sd.Chunks {
			dst = AppendChunk(dst, c)
		}
		if sd.End != nil {
			dst = AppendEnd(dst, *sd.End)
		}
	}
	for _, n := range x.Notes {
		dst = AppendNote(dst, n)
	}
	return dst
}
