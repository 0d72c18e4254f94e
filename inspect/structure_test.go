package inspect

import (
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// upClientDiff inspects in and returns its upstream-vs-client diff.
func upClientDiff(t *testing.T, in exInput) *Diff {
	t.Helper()
	r := Inspect(in.capture(), Options{})
	for _, d := range r.Exchanges[len(r.Exchanges)-1].Diffs {
		if d.Kind == DiffUpstreamClient {
			return d
		}
	}
	t.Fatal("no upstream-vs-client diff")
	return nil
}

// TestHunkRegions: each upstream-vs-client hunk says where it sits
// relative to the tool blocks: a changed preamble, a rewritten block, text
// between two blocks, and narrative after the last block held back (what
// suppress-tail does).
func TestHunkRegions(t *testing.T) {
	t.Parallel()
	up := chatText("Let me read it. ", blockA, " Then ", blockB, " Calling read now.")
	for _, tc := range []struct {
		name, client, want string
	}{
		{"preamble", chatText("Let me look. ", blockA, " Then ", blockB, " Calling read now."), RegionPreamble},
		{"tool block", chatText("Let me read it. ", "<use_tool><name>read</name><path>z</path></use_tool>", " Then ", blockB, " Calling read now."), RegionToolBlock},
		{"between blocks", chatText("Let me read it. ", blockA, " And then ", blockB, " Calling read now."), RegionBetween},
		{"tail", chatText("Let me read it. ", blockA, " Then ", blockB), RegionTail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := upClientDiff(t, exInput{up: up, client: tc.client})
			if len(d.Hunks) != 1 || d.Hunks[0].Region != tc.want || d.Hunks[0].Converted {
				t.Fatalf("hunks %+v, want one in region %s", d.Hunks, tc.want)
			}
		})
	}
	// Texts without tool blocks have no regions.
	d := upClientDiff(t, exInput{up: chatText("Hello world"), client: chatText("Hello there")})
	if len(d.Hunks) != 1 || d.Hunks[0].Region != "" {
		t.Fatalf("hunks %+v, want one without a region", d.Hunks)
	}
}

// TestConvertedHunk: a structured upstream call the client gets as an
// Obsidian block, unchanged, is not a text change (no diff.upstream-client)
// but an info finding; the same block with other arguments is a text change
// and a changed call.
func TestConvertedHunk(t *testing.T) {
	t.Parallel()
	up := cc(chatRole) + cc(`{"content":"Let me read it. "}`) + cc(tool(0, "call_a", "read", `{"path":"a"}`)) + ccf(`{}`, "tool_calls") + done
	asXML := func(path string) string {
		return cc(chatRole) + cc(`{"content":"Let me read it. "}`) + cc(`{"content":`+jsonString("<use_tool>\n<name>read</name>\n<path>"+path+"</path>\n</use_tool>")+`}`) + ccf(`{}`, "tool_calls") + done
	}
	converted := asXML("a")
	in := exInput{up: up, client: converted}
	d := upClientDiff(t, in)
	if len(d.Hunks) != 1 || !d.Hunks[0].Converted || d.Hunks[0].Region != RegionToolBlock {
		t.Fatalf("hunks %+v, want one converted tool block", d.Hunks)
	}
	fs := in.findings(t)
	if ids := findingIDs(fs); ids != "client.disagree, diff.tool-call-converted" {
		t.Fatalf("findings %s, want only the clients' disagreement and the conversion", ids)
	}
	f := fs[1]
	if f.Pointer.Side != tape.Client || f.Pointer.Event != 2 {
		t.Errorf("conversion at %s, want client event 2 (the block)", f.Pointer)
	}

	fs = exInput{up: up, client: asXML("b")}.findings(t)
	got := map[string]Finding{}
	for _, f := range fs {
		got[f.ID] = f
	}
	if _, ok := got["diff.upstream-client"]; !ok {
		t.Errorf("a rewritten block is a text change; findings %s", findingIDs(fs))
	}
	a, ok := got["diff.tool-args-changed"]
	if !ok || a.Pointer.Event != 2 || a.Peer == nil || a.Peer.Side != tape.Upstream || a.Peer.Event != 2 {
		t.Fatalf("diff.tool-args-changed %+v (peer %v), want client event 2 vs upstream event 2; findings %s", a, a.Peer, findingIDs(fs))
	}
	if a.Evidence != `changes path; path: upstream "\"a\"" / client "\"b\""` {
		t.Errorf("evidence %q", a.Evidence)
	}
}

// TestLegacyAndCustomCallsMatch: the deprecated Chat function_call and a
// Responses custom tool call are tool calls too, so the same call carried
// as an Obsidian block is a conversion, not a dropped call plus an added
// one.
func TestLegacyAndCustomCallsMatch(t *testing.T) {
	t.Parallel()
	legacy := cc(chatRole) + cc(`{"function_call":{"name":"read","arguments":"{\"path\":"}}`) + cc(`{"function_call":{"arguments":"\"a\"}"}}`) + ccf(`{}`, "function_call") + done
	xml := cc(chatRole) + cc(`{"content":`+jsonString("<use_tool>\n<name>read</name>\n<path>a</path>\n</use_tool>")+`}`) + ccf(`{}`, "function_call") + done
	if ids := findingIDs(exInput{up: legacy, client: xml}.findings(t)); ids != "client.disagree, diff.tool-call-converted" {
		t.Errorf("legacy call as XML: findings %s", ids)
	}
	custom := respStream(
		respEv{typ: "response.created", fields: `"response":{"id":"r1","model":"m","status":"in_progress","output":[]}`},
		respEv{typ: "response.output_item.added", fields: `"output_index":0,"item":{"type":"custom_tool_call","id":"c1","call_id":"call_1","name":"apply_patch","input":""}`},
		respEv{typ: "response.custom_tool_call_input.delta", fields: `"output_index":0,"item_id":"c1","delta":"*** Begin"`},
		respEv{typ: "response.output_item.done", fields: `"output_index":0,"item":{"type":"custom_tool_call","id":"c1","call_id":"call_1","name":"apply_patch","input":"*** Begin"}`},
		respEv{typ: "response.completed", fields: `"response":{"id":"r1","model":"m","status":"completed","output":[{"type":"custom_tool_call","id":"c1","call_id":"call_1","name":"apply_patch","input":"*** Begin"}]}`})
	asXML := respOK("<use_tool>\n<name>apply_patch</name>\n<input>*** Begin</input>\n</use_tool>", "<use_tool>\n<name>apply_patch</name>\n<input>*** Begin</input>\n</use_tool>")
	if ids := findingIDs(exInput{url: "/v1/responses", up: custom, client: asXML}.findings(t)); ids != "client.disagree, diff.tool-call-converted" {
		t.Errorf("custom call as XML: findings %s", ids)
	}
}

// TestArgsWithTrailingBytesChanged: arguments that carry bytes after their
// JSON value (a proxy repeating the closing brace) are not the upstream's
// arguments: a client's JSON.parse fails on them.
func TestArgsWithTrailingBytesChanged(t *testing.T) {
	t.Parallel()
	up := chatCalls([3]string{"call_a", "read", `{"path":"a"}`})
	for _, args := range []string{`{"path":"a"}}`, `{"path":"a"} x`, `{"path":"a"}]`} {
		fs := exInput{up: up, client: chatCalls([3]string{"call_a", "read", args})}.findings(t)
		if !strings.Contains(findingIDs(fs), "diff.tool-args-changed") {
			t.Errorf("client arguments %s: findings %s, want diff.tool-args-changed", args, findingIDs(fs))
		}
	}
}
