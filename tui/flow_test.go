package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/seam-dev/seam/inspect"
)

// recorder wraps the model and keeps the last frame it rendered, so a flow
// test waits on what the screen shows rather than on the terminal byte
// stream (which only carries the cells that changed).
type recorder struct {
	m    *model
	last atomic.Pointer[string]
}

func (r *recorder) Init() tea.Cmd { return r.m.Init() }

func (r *recorder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := r.m.Update(msg)
	return r, cmd
}

func (r *recorder) View() tea.View {
	v := r.m.View()
	s := ansi.Strip(v.Content)
	r.last.Store(&s)
	return v
}

func (r *recorder) screen() string {
	if p := r.last.Load(); p != nil {
		return *p
	}
	return ""
}

// waitScreen waits until the screen satisfies cond.
func waitScreen(t *testing.T, tm *teatest.TestModel, r *recorder, what string, cond func(string) bool) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func([]byte) bool { return cond(r.screen()) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	if !cond(r.screen()) {
		t.Fatalf("screen never showed %s:\n%s", what, r.screen())
	}
}

func contains(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

// hasLine reports whether some screen line, trimmed, starts with prefix.
func hasLine(s, prefix string) bool {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimLeft(l, " ▌▶")
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return true
		}
	}
	return false
}

// TestFlowIncidentFix opens the incident capture, finds the seam and
// watches the holdback switch close it: the list shows the error badge,
// enter opens the diff, n lands on the hunk holding </use_tool<use_tool>,
// toggling holdback in the engine panel replays the exchange and the hunk
// and the finding disappear, and q quits.
func TestFlowIncidentFix(t *testing.T) {
	t.Parallel()
	for _, path := range []string{incidentPath, "../fixtures/incident-holdback-off.ndjson"} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			// Both captures are in the repository.
			if _, err := os.Stat(path); err != nil {
				t.Fatal(err)
			}
			flowIncidentFix(t, path)
		})
	}
}

func flowIncidentFix(t *testing.T, path string) {
	m, err := newModel(context.Background(), Options{Paths: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	r := &recorder{m: m}
	tm := teatest.NewTestModel(t, r, teatest.WithInitialTermSize(120, 35),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))

	// The list, with the error badge on the incident exchange.
	waitScreen(t, tm, r, "the error badge", func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "▸ 1 ") && strings.Contains(l, "E4 ") {
				return true
			}
		}
		return false
	})

	tm.Send(keyMsg("enter"))
	waitScreen(t, tm, r, "the diff tab", contains("[Diff]"))
	waitScreen(t, tm, r, "the upstream vs client diff", contains("upstream vs client  1 hunk "))

	tm.Send(keyMsg("n"))
	waitScreen(t, tm, r, "the current hunk with </use_tool<use_tool>", func(s string) bool {
		return strings.Contains(s, "▶ @@ hunk 1/1 · client event 282") && hasLine(s, "+ </use_tool<use_tool>")
	})

	tm.Send(keyMsg("e"))
	waitScreen(t, tm, r, "the engine panel", contains("engine switches"))
	tm.Send(keyMsg("j"))
	tm.Send(keyMsg("j"))
	waitScreen(t, tm, r, "the holdback switch selected", func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "▌ [ ] holdback") {
				return true
			}
		}
		return false
	})
	tm.Send(keyMsg("space"))
	waitScreen(t, tm, r, "the replay", contains("changed: holdback=on · 1 finding now"))
	tm.Send(keyMsg("esc"))
	waitScreen(t, tm, r, "the replayed diff", func(s string) bool {
		return strings.Contains(s, "replayed obsidian-xml holdback=on") &&
			strings.Contains(s, "upstream vs client  identical") &&
			!hasLine(s, "+ </use_tool<use_tool>")
	})
	tm.Send(keyMsg("3"))
	waitScreen(t, tm, r, "the findings without the seam", func(s string) bool {
		return strings.Contains(s, "[Findings (1)]") && !strings.Contains(s, "xml.unclosed-closer")
	})

	tm.Send(keyMsg("q"))
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*recorder).m
	d := final.det
	if d == nil || d.rp == nil {
		t.Fatal("the exchange was not replayed")
	}
	if d.engine.Switches["holdback"] != "on" || d.recEngine.Switches["holdback"] != "off" {
		t.Errorf("engine holdback=%s, recorded %s", d.engine.Switches["holdback"], d.recEngine.Switches["holdback"])
	}
	for _, f := range d.view().rep.Findings {
		if f.ID == "xml.unclosed-closer" {
			t.Errorf("the replayed exchange still has %s", f.ID)
		}
	}
	for _, df := range d.view().rep.Diffs {
		if df.Kind == inspect.DiffUpstreamClient && !df.Equal {
			t.Errorf("upstream and client still differ after the fix: %+v", df.Hunks)
		}
	}
}
