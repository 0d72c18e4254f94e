package sse

// SplitEvents cuts body at event boundaries, as an upstream that writes and
// flushes once per event is read: each part runs from the end of the
// previous event (comments and blank lines before an event belong to its
// part) to the end of the blank line that dispatched the event. Bytes after
// the last dispatched event form a final part. Joined, the parts are body;
// they alias it.
func SplitEvents(body []byte) [][]byte {
	var parts [][]byte
	var last int64
	var p Parser
	emit := func(e Event, _ []byte) {
		if e.End > last {
			parts = append(parts, body[last:e.End:e.End])
			last = e.End
		}
	}
	p.FeedView(body, emit)
	p.CloseView(emit)
	if int(last) < len(body) {
		parts = append(parts, body[last:])
	}
	return parts
}
