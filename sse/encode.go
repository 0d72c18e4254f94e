package sse

import "strconv"

// AppendEvent encodes e as a canonical event block and returns the extended
// slice: "event: T\n" when Type is not "", "id: I\n" when ID is not "",
// "retry: N\n" when Retry is positive, one "data: line\n" per line of Data
// (at least one, so an empty Data is still dispatched), then "\n".
//
// Parsing the output gives back Type, Data, ID and Retry, with these
// exceptions, all of which only concern values the Parser never produces:
// CR, LF (and NUL in ID) cannot appear in Type or ID and are dropped; a CR
// or CRLF in Data ends a line just as LF does, so it comes back as "\n";
// Retry 0 is not written, so that a zero Event encodes without a retry
// line. An empty ID is not written either, so it cannot reset an ID set by
// an earlier event; Encoder handles that for a sequence of events.
func AppendEvent(dst []byte, e Event) []byte {
	return appendEvent(dst, e, e.ID != "")
}

// Encoder encodes a sequence of events so that parsing the output gives back
// each event's ID: it writes an "id" line whenever the ID differs from the
// previous event's, including "id: \n" when it changes back to "". The zero
// value is ready to use.
type Encoder struct {
	lastID string
}

// Append encodes e like AppendEvent, except for the rule for the "id" line
// described on Encoder, and returns the extended slice.
func (enc *Encoder) Append(dst []byte, e Event) []byte {
	id := cleanID(e.ID)
	write := id != enc.lastID
	enc.lastID = id
	return appendEvent(dst, e, write)
}

func cleanID(id string) string {
	for i := 0; i < len(id); i++ {
		if c := id[i]; c == '\r' || c == '\n' || c == 0 {
			return string(appendClean(nil, id, true))
		}
	}
	return id
}

func appendEvent(dst []byte, e Event, writeID bool) []byte {
	if e.Type != "" {
		dst = append(dst, "event: "...)
		dst = appendClean(dst, e.Type, false)
		dst = append(dst, '\n')
	}
	if writeID {
		dst = append(dst, "id: "...)
		dst = appendClean(dst, e.ID, true)
		dst = append(dst, '\n')
	}
	if e.Retry > 0 {
		dst = append(dst, "retry: "...)
		dst = strconv.AppendInt(dst, int64(e.Retry), 10)
		dst = append(dst, '\n')
	}
	d := e.Data
	for {
		j := 0
		for j < len(d) && d[j] != '\n' && d[j] != '\r' {
			j++
		}
		dst = append(dst, "data: "...)
		dst = append(dst, d[:j]...)
		dst = append(dst, '\n')
		if j == len(d) {
			break
		}
		if d[j] == '\r' && j+1 < len(d) && d[j+1] == '\n' {
			j++
		}
		d = d[j+1:]
	}
	return append(dst, '\n')
}

// appendClean appends s without CR and LF bytes (and without NUL when nul
// is set).
func appendClean(dst []byte, s string, nul bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' || c == '\n' || (nul && c == 0) {
			continue
		}
		dst = append(dst, c)
	}
	return dst
}
