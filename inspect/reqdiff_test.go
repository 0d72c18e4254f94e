package inspect

import (
	"strings"
	"testing"
)

// TestRequestDiffReported: the request diff of a sandwich shows in the
// report, the text rendering and the JSON.
func TestRequestDiffReported(t *testing.T) {
	t.Parallel()
	in := exInput{req: toolsReq, upReq: strings.Replace(toolsReq, `"model":"m"`, `"model":"m-mini"`, 1), client: chatText("Hi")}
	r := Inspect(in.capture(), Options{})
	if d := r.Exchanges[0].RequestDiff; d == nil || d.Model == nil || d.Model.Upstream != "m-mini" {
		t.Fatalf("request diff %+v", d)
	}
	var text, js strings.Builder
	if err := WriteText(&text, r, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "-- request: client's vs sent upstream by the proxy under test\n   model: m → m-mini\n") {
		t.Errorf("text report:\n%s", text.String())
	}
	if !strings.Contains(js.String(), `"request_diff": {`) || !strings.Contains(js.String(), `"upstream": "m-mini"`) {
		t.Errorf("JSON report lacks the request diff:\n%s", js.String())
	}
	// Without a second leg there is no request diff.
	if d := Inspect(exInput{req: toolsReq, client: chatText("Hi")}.capture(), Options{}).Exchanges[0].RequestDiff; d != nil {
		t.Errorf("request diff without an upstream request: %+v", d)
	}
}
