package htmlreport

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/fixtures"
)

// browser returns the Chromium binary to test the page in: $SEAM_CHROMIUM,
// else chromium or chromium-browser on PATH; "" when there is none.
func browser() string {
	if p := os.Getenv("SEAM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// loadInBrowser opens the page at path in headless Chromium, with no
// network of its own (no QUIC, no background or component fetches, no
// sync), and returns the DOM after load, what Chromium logged, and the
// screenshot it took at a laptop's window size.
func loadInBrowser(t *testing.T, bin, path string, extra ...string) (dom []byte, log string, shot string) {
	t.Helper()
	dir := t.TempDir()
	shot = filepath.Join(dir, "screenshot.png")
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"),
		"--enable-logging=stderr", "--v=0",
		"--window-size=1366,900", "--screenshot=" + shot, "--dump-dom",
	}, extra...)
	args = append(args, "file://"+path)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	return stdout.Bytes(), stderr.String(), shot
}

// consoleLines returns what the page wrote to the browser's console:
// errors, CSP violations (an inline style or script refused, a fetch
// blocked) and any other message.
func consoleLines(log string) []string {
	var out []string
	for l := range strings.Lines(log) {
		if strings.Contains(l, ":CONSOLE") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// TestInBrowser opens the incident's page in a real browser, when
// Chromium is installed: the page renders with nothing on the console (no
// error, no policy violation, so the style sheet's hash is right and
// nothing was fetched), the DOM after load holds the seam in the diff and
// the chart with its mark, and the screenshot is a real rendering. Set
// SEAM_SCREENSHOT=FILE to keep the screenshot.
func TestInBrowser(t *testing.T) {
	bin := browser()
	if bin == "" {
		t.Skip("no Chromium: the page is not checked in a browser (install Debian's chromium, or set SEAM_CHROMIUM to a Chromium binary)")
	}
	path := filepath.Join(t.TempDir(), "incident.report.html")
	if err := os.WriteFile(path, render(t, loadFixture(t, fixtures.Incident), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, log, shot := loadInBrowser(t, bin, path)
	if c := consoleLines(log); len(c) > 0 {
		t.Errorf("the browser console is not empty:\n%s", strings.Join(c, "\n"))
	}

	doc := parse(t, dom)
	seam := false
	for _, d := range find(doc, "div", "diff") {
		for _, l := range find(d, "div", "ln", "add") {
			seam = seam || strings.TrimPrefix(text(l), "+") == "</use_tool<use_tool>"
		}
	}
	if !seam {
		t.Error("the loaded page has no + line </use_tool<use_tool> in its diff")
	}
	svgs := find(doc, "svg")
	if len(svgs) != 1 {
		t.Fatalf("the loaded page has %d charts, want 1", len(svgs))
	}
	if len(find(svgs[0], "path", "line", "up")) != 1 || len(find(svgs[0], "path", "line", "cl")) != 1 {
		t.Error("the chart lacks a side's line")
	}
	if m := find(svgs[0], "g", "mark"); len(m) != 1 || !strings.Contains(text(m[0]), "client event 282") {
		t.Error("the chart does not mark client event 282")
	}
	if len(find(svgs[0], "rect", "stall")) == 0 {
		t.Error("the chart shades no stall")
	}

	checkScreenshot(t, shot)
	if keep := os.Getenv("SEAM_SCREENSHOT"); keep != "" {
		b, err := os.ReadFile(shot)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(keep, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", keep)
	}
}

// TestHostileInBrowser opens the hostile capture's page: nothing on the
// console (a script that got through would be refused by the policy, and
// the refusal would be logged) and no script element after load.
func TestHostileInBrowser(t *testing.T) {
	bin := browser()
	if bin == "" {
		t.Skip("no Chromium: the page is not checked in a browser (install Debian's chromium, or set SEAM_CHROMIUM to a Chromium binary)")
	}
	path := filepath.Join(t.TempDir(), "hostile.report.html")
	if err := os.WriteFile(path, render(t, hostileCapture(t), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, log, shot := loadInBrowser(t, bin, path)
	if c := consoleLines(log); len(c) > 0 {
		t.Errorf("the browser console is not empty:\n%s", strings.Join(c, "\n"))
	}
	doc := parse(t, dom)
	if n := len(find(doc, "script")) + len(find(doc, "img")); n != 0 {
		t.Errorf("%d script or img elements after load", n)
	}
	if !strings.Contains(text(doc), "<script>alert(1)</script>") {
		t.Error("the hostile text is not shown as text")
	}
	checkScreenshot(t, shot)
}

// checkScreenshot checks that the screenshot is a PNG of the window's size
// holding a rendering: many colours, not a blank page.
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != 1366 || b.Dy() != 900 {
		t.Errorf("screenshot is %dx%d, want 1366x900", b.Dx(), b.Dy())
	}
	colours := map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	if len(colours) < 50 {
		t.Errorf("screenshot has %d colours: a blank page?", len(colours))
	}
}
