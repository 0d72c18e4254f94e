package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// What the SDK tests check of seam's captures and of its verdict on them.

// inspectDoc is the part of inspect --json the SDK tests read.
type inspectDoc struct {
	Exchanges []struct {
		Ex       int    `json:"ex"`
		Protocol string `json:"protocol"`
		Outcome  string `json:"outcome"`
		Sides    []struct {
			Side    string          `json:"side"`
			Outcome string          `json:"outcome"`
			Message *inspectMessage `json:"message"`
		} `json:"sides"`
		Findings []inspectFinding `json:"findings"`
	} `json:"exchanges"`
}

type inspectFinding struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

type inspectMessage struct {
	Choices []struct {
		Text      string `json:"text"`
		Reasoning string `json:"reasoning"`
		ToolCalls []struct {
			ID        string `json:"id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"tool_calls"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *sdkUsage `json:"usage"`
	Error string    `json:"error"`
}

// result is the message as an SDK result, tool call arguments parsed.
func (m *inspectMessage) result(model string) sdkResult {
	r := sdkResult{Model: model, ToolCalls: []sdkCall{}}
	if m == nil {
		return r
	}
	r.Usage, r.Error = m.Usage, m.Error
	if len(m.Choices) > 0 {
		ch := m.Choices[0]
		r.Text, r.Reasoning, r.Finish = ch.Text, ch.Reasoning, ch.FinishReason
		for _, tc := range ch.ToolCalls {
			var args any
			if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil {
				args = map[string]any{"unparsed": tc.Arguments}
			}
			r.ToolCalls = append(r.ToolCalls, sdkCall{ID: tc.ID, Name: tc.Name, Args: args})
		}
	}
	return r
}

// sdkInspect runs seam inspect --json on file.
func sdkInspect(t *testing.T, file string) inspectDoc {
	t.Helper()
	var stdout, stderr bytes.Buffer
	runSeam(context.Background(), nil, &stdout, &stderr, "inspect", "--json", file)
	var doc inspectDoc
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("inspect --json %s: %v\n%s", file, err, stderr.Bytes())
	}
	return doc
}

// cutFindings say a stream was cut short: false on a stream its SDK read
// to its end.
var cutFindings = []string{"encoding.cut", "framing.cut", "stream.no-terminal", "stream.outcome", "tape.interrupted"}

// checkSDKCapture checks every exchange of the capture in file, each in a
// subtest named by its model: byte for byte the served body upstream and
// the same bytes on the client side, seam's assembly equal to what the SDK
// reported, no error-level finding and none saying the stream was cut.
func checkSDKCapture(t *testing.T, file string, results map[string]sdkResult) {
	c, err := tape.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := sdkInspect(t, file)
	if len(doc.Exchanges) != len(c.Exchanges) {
		t.Fatalf("inspect --json has %d exchanges, the capture %d", len(doc.Exchanges), len(c.Exchanges))
	}
	seen := map[string]int{}
	// Exchanges are paired by number: concurrent requests write their
	// lines in an order of their own, so the capture's order and the
	// report's need not be the same.
	byEx := map[int]int{}
	for i, e := range doc.Exchanges {
		byEx[e.Ex] = i
	}
	for _, x := range c.Exchanges {
		i, ok := byEx[x.Ex]
		if !ok {
			t.Errorf("exchange %d is not in inspect --json", x.Ex)
			continue
		}
		model := bodyModel(x.Request.URL, x.Request.Body)
		b, ok := sdkBodies[model]
		if !ok {
			t.Errorf("exchange %d: %s %s names no recorded body", x.Ex, x.Request.Method, x.Request.URL)
			continue
		}
		seen[model]++
		ex := doc.Exchanges[i]
		t.Run(model, func(t *testing.T) {
			if host := sdkHost(model); x.Request.Host != "" && x.Request.Host != host {
				t.Errorf("the exchange names host %q, want %q", x.Request.Host, host)
			}
			whole, cut := servedBodies(t, b)
			if got := x.Upstream.Body(); !bytes.Equal(got, whole) && !bytes.Equal(got, cut) {
				t.Errorf("upstream side (%d bytes) is not the served body (%d bytes, or %d before the compressor's last block)", len(got), len(whole), len(cut))
			}
			if !bytes.Equal(x.Client.Body(), x.Upstream.Body()) {
				t.Errorf("client side (%d bytes) differs from upstream (%d bytes) in passthrough", len(x.Client.Body()), len(x.Upstream.Body()))
			}
			if len(ex.Sides) == 0 || ex.Sides[0].Message == nil {
				t.Fatalf("no assembled message")
			}
			if sdk := results[model]; sdk.Error != "" {
				sdkFailed(t, model, sdk, ex.Sides[0].Message, ex.Findings)
				return
			}
			if got := ex.Sides[0].Message.result(model); !sameResult(got, results[model]) {
				t.Errorf("seam assembled %v\nthe SDK reported %v", got, results[model])
			}
			var cuts []inspectFinding
			for _, f := range ex.Findings {
				switch {
				case f.Severity == "error":
					t.Errorf("error finding %s: %s", f.ID, f.Message)
				case slices.Contains(cutFindings, f.ID):
					cuts = append(cuts, f)
				default:
					t.Logf("%s finding %s: %s", f.Severity, f.ID, f.Message)
				}
			}
			for _, f := range cuts {
				if why, ok := cutDisagreements[model]; ok {
					t.Skipf("%s: seam says %s %s: %s (recorded outcome %s)", why, f.Severity, f.ID, f.Message, x.Upstream.End.Outcome)
				}
				t.Errorf("%s finding %s on a stream the SDK read to its end: %s", f.Severity, f.ID, f.Message)
			}
		})
	}
	for m := range results {
		if seen[m] == 0 {
			t.Errorf("no exchange for %s", m)
		}
	}
}

// cutDisagreements are the streams their SDK reads to the end and seam
// calls cut, with the issue item that fixes them.
var cutDisagreements = map[string]string{}

// sdkDisagreements are the streams an SDK fails on and seam passes (no
// error-level finding), with what seam says instead.
var sdkDisagreements = map[string]string{
	"gemini-prompt-blocked": "the last event has no blank line after it: @google/genai throws " +
		"\"Incomplete JSON segment at the end\", seam warns sse.unterminated-event (\"spec clients discard it\") and nothing at error level",
}

// sdkFailed checks seam's verdict on a stream the SDK failed on: an
// error-level finding (so --fail-on error fails it) and the error in the
// assembled message.
func sdkFailed(t *testing.T, model string, sdk sdkResult, m *inspectMessage, findings []inspectFinding) {
	t.Helper()
	if m.Error == "" {
		t.Errorf("the SDK failed (%s), seam's message has no error", sdk.Error)
	}
	var errs []inspectFinding
	for _, f := range findings {
		if f.Severity == "error" {
			errs = append(errs, f)
		}
	}
	if len(errs) == 0 {
		if why, ok := sdkDisagreements[model]; ok {
			t.Skipf("seam passes a stream the SDK fails on (%s): %s", sdk.Error, why)
		}
		t.Fatalf("the SDK failed (%s), seam has no error-level finding: %+v", sdk.Error, findings)
	}
	for _, f := range errs {
		if m.Error != "" && strings.Contains(f.Message, m.Error) {
			return
		}
	}
	t.Errorf("the SDK failed with the provider's words (%s), seam's error finding %s says %q without them (its message has %q)",
		sdk.Error, errs[0].ID, errs[0].Message, m.Error)
}

// checkConverseJSONL checks the JSON lines the AWS SDK's events made (one
// JSON.stringify per event, as a logger writes them): they are the ones in
// fixtures/round3 (SEAM_GEN=1 rewrites those), and seam inspect, reading
// them as an import, assembles what the SDK reported.
func checkConverseJSONL(t *testing.T, dir string, results map[string]sdkResult) {
	for model, b := range sdkBodies {
		if b.ctype != ctEventStream || strings.HasPrefix(model, "invoke-") {
			continue
		}
		t.Run(model, func(t *testing.T) {
			file := filepath.Join(dir, model+".jsonl")
			got, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("the SDK's events: %v", err)
			}
			name := converseJSONLFixture(b.file)
			if os.Getenv("SEAM_GEN") != "" {
				if err := os.WriteFile(filepath.Join(fixturesDir, filepath.FromSlash(name)), got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if want := readFixture(t, name); !bytes.Equal(got, want) {
				t.Errorf("the AWS SDK's events differ from fixtures/%s (SEAM_GEN=1 rewrites it)", name)
			}
			doc := sdkInspect(t, file)
			if len(doc.Exchanges) != 1 || len(doc.Exchanges[0].Sides) == 0 {
				t.Fatalf("inspect --json of the SDK's events: %+v", doc)
			}
			ex := doc.Exchanges[0]
			if ex.Protocol != "bedrock-converse" {
				t.Errorf("the SDK's events read as %q", ex.Protocol)
			}
			if got := ex.Sides[0].Message.result(model); !sameResult(got, results[model]) {
				t.Errorf("seam assembled the SDK's events as %v\nthe SDK reported %v", got, results[model])
			}
			for _, f := range ex.Findings {
				if f.Severity == "error" {
					t.Errorf("error finding %s: %s", f.ID, f.Message)
				}
			}
		})
	}
}

// converseJSONLFixture names the fixture of the events the AWS SDK yields
// for the ConverseStream body in file.
func converseJSONLFixture(file string) string {
	return "round3/" + strings.TrimSuffix(filepath.Base(file), ".eventstream") + ".sdk-events.jsonl"
}
