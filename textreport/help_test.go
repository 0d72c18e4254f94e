package textreport

import "testing"

// TestFitHelp: a long command line breaks with a shell continuation so it
// can still be pasted; a two-column row hangs under its second column; a
// line that fits is left as it is.
func TestFitHelp(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  seam serve --mode new_episodes --upstream https://api.openai.com -o captures/ captures/\n",
			"  seam serve --mode new_episodes --upstream https://api.openai.com -o \\\n      captures/ captures/\n"},
		{"  --listen ADDR   the address to listen on, a port alone meaning 127.0.0.1:PORT, any host",
			"  --listen ADDR   the address to listen on, a port alone meaning 127.0.0.1:PORT,\n                  any host"},
		{"short line\n", "short line\n"},
	} {
		if got := FitHelp(tc.in, 80); got != tc.want {
			t.Errorf("FitHelp(%q) =\n%s\nwant\n%s", tc.in, got, tc.want)
		}
	}
}
