package visible

import "testing"

// TestEncodeJSON: no HTML escaping, characters that act on a terminal
// escaped, indented with a prefix or on one line, a newline after.
func TestEncodeJSON(t *testing.T) {
	v := map[string]any{"a": "<b>&\u202e", "n": []int{1}}
	b, err := EncodeJSON(v, "", "")
	if err != nil || string(b) != `{"a":"<b>&\u202e","n":[1]}`+"\n" {
		t.Errorf("one line: %s, %v", b, err)
	}
	b, err = EncodeJSON(v, "  ", "  ")
	if want := "{\n    \"a\": \"<b>&\\u202e\",\n    \"n\": [\n      1\n    ]\n  }\n"; err != nil || string(b) != want {
		t.Errorf("indented: %q, %v", b, err)
	}
	if _, err := EncodeJSON(func() {}, "", ""); err == nil {
		t.Error("encoded a func")
	}
}
