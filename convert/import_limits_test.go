package convert

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestImportRequestBodyKept: an imported request body longer than the
// recorder keeps is cut as the recorder cuts it, and marked so, so its
// request line stays readable (tape.MaxLine).
func TestImportRequestBodyKept(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("x", maxImportRequestBody+10)
	har, _ := json.Marshal(map[string]any{"log": map[string]any{"version": "1.2", "entries": []any{map[string]any{
		"startedDateTime": "2026-01-01T00:00:00Z", "time": 1,
		"request":  map[string]any{"method": "POST", "url": "https://api.openai.com/v1/chat/completions", "headers": []any{}, "postData": map[string]any{"mimeType": "text/plain", "text": body}},
		"response": map[string]any{"status": 200, "headers": []any{}, "content": map[string]any{"mimeType": "application/json", "text": `{"ok":true}`}},
		"timings":  map[string]any{"wait": 1, "receive": 0},
	}}}})
	c, err := ImportBytes(har, "big.har")
	if err != nil {
		t.Fatal(err)
	}
	r := c.Exchanges[0].Request
	if len(r.Body) != maxImportRequestBody || !r.BodyTruncated {
		t.Fatalf("request body %d bytes, truncated %v", len(r.Body), r.BodyTruncated)
	}
}

// TestImportHTTPRROverflow: an httprr record whose two sizes are near the
// largest int (their sum wraps negative) is refused with the sizes named,
// never sliced: it panicked every command that reads raw files.
func TestImportHTTPRROverflow(t *testing.T) {
	t.Parallel()
	for _, sizes := range []string{
		"9223372036854775807 9223372036854775807",
		"9223372036854775000 9223372036854775000",
		"1 9223372036854775807",
		"9223372036854775807 1",
	} {
		in := "httprr trace v1\n" + sizes + "\nGET / HTTP/1.1\r\nHost: x\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"
		c, err := ImportBytes([]byte(in), "x.httprr")
		var ie *ImportError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "bytes announced") {
			t.Errorf("%s: %v, %v; want an ImportError naming the sizes", sizes, c, err)
		}
	}
}
