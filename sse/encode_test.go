package sse

import (
	"reflect"
	"testing"
)

func TestAppendEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Event
		want string
		back ev // what parsing the output gives
	}{
		{"data only", Event{Data: "hi", Retry: -1}, "data: hi\n\n", ev{D: "hi", R: -1}},
		{"zero event", Event{}, "data: \n\n", ev{R: -1}},
		{"all fields", Event{Type: "t", ID: "7", Retry: 3000, Data: "a\nb"}, "event: t\nid: 7\nretry: 3000\ndata: a\ndata: b\n\n", ev{T: "t", ID: "7", R: 3000, D: "a\nb"}},
		{"leading spaces kept", Event{Type: " t", Data: " x"}, "event:  t\ndata:  x\n\n", ev{T: " t", D: " x", R: -1}},
		{"trailing newline", Event{Data: "a\n"}, "data: a\ndata: \n\n", ev{D: "a\n", R: -1}},
		{"cr and crlf in data", Event{Data: "a\rb\r\nc"}, "data: a\ndata: b\ndata: c\n\n", ev{D: "a\nb\nc", R: -1}},
		{"newlines dropped from type and id", Event{Type: "a\nb", ID: "1\r\x002", Data: "x"}, "event: ab\nid: 12\ndata: x\n\n", ev{T: "ab", ID: "12", D: "x", R: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := AppendEvent([]byte("prefix"), tt.in)
			if string(out[6:]) != tt.want {
				t.Fatalf("AppendEvent = %q, want %q", out[6:], tt.want)
			}
			got := evs(parseChunks(out[6:]))
			if !reflect.DeepEqual(got, []ev{tt.back}) {
				t.Errorf("parsed back %+v, want %+v", got, tt.back)
			}
		})
	}
}

func TestEncoderIDChanges(t *testing.T) {
	t.Parallel()
	in := []Event{
		{Data: "a", ID: "1", Retry: -1, Terminated: true},
		{Data: "b", ID: "1", Retry: -1, Terminated: true},
		{Data: "c", ID: "", Retry: -1, Terminated: true},
		{Data: "d", ID: "2", Retry: -1, Terminated: true},
	}
	var enc Encoder
	var out []byte
	for _, e := range in {
		out = enc.Append(out, e)
	}
	want := "id: 1\ndata: a\n\ndata: b\n\nid: \ndata: c\n\nid: 2\ndata: d\n\n"
	if string(out) != want {
		t.Fatalf("Encoder output %q, want %q", out, want)
	}
	if got, wantEv := evs(parseChunks(out)), evs(in); !reflect.DeepEqual(got, wantEv) {
		t.Errorf("parsed back %+v, want %+v", got, wantEv)
	}
}
