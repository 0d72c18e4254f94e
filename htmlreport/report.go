package htmlreport

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// DefaultStall is the gap without bytes that the chart shades as a stall
// unless told otherwise: inspect's, so the page shades the stalls that
// seam inspect and seam stats count.
const DefaultStall = inspect.DefaultStall

// Options tune Write.
type Options struct {
	// Version is the seam version the page names as its generator.
	Version string
	// Stall is the gap without bytes on a side beyond which the chart
	// shades a stall; 0 shades none.
	Stall time.Duration
}

// Limits on what one page shows, so that a capture of any size makes a
// page a browser opens at once. Everything cut says how much was left out.
const (
	maxText      = 16 << 10 // assembled text per choice
	maxArgs      = 4 << 10  // tool call arguments
	maxBody      = 64 << 10 // request body
	maxValue     = 1 << 10  // a header value, a client's value
	maxFindings  = 300      // findings per exchange
	maxDiffLines = 600      // lines per diff
	maxLineHead  = 200      // diff line: bytes kept before the change
	maxLineMid   = 2000     // diff line: bytes of the change
	maxLineTail  = 400      // diff line: bytes kept after the change
)

//go:embed page.html.tmpl
var pageSource string

//go:embed style.css
var styleSheet string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"vis":    func(s string) []visible.Piece { return pieces(s, false) },
	"pre":    func(s string) []visible.Piece { return pieces(s, true) },
	"commas": func(n int) string { return commas(int64(n)) },
	"add":    func(a, b int) int { return a + b },
	"plural": units.Count[int],
}).Parse(pageSource))

// contentPolicy forbids the page every fetch, script, frame and form: it
// may only apply its own style sheet, named by hash.
var contentPolicy = func() string {
	sum := sha256.Sum256([]byte(styleSheet))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; base-uri 'none'; form-action 'none'"
}()

// Write renders the report r of capture c as one self-contained HTML page:
// inline style and SVG, no script, no fetch. The same capture, report and
// options always give the same bytes.
func Write(w io.Writer, c *tape.Capture, r *inspect.Report, o Options) error {
	return WriteContext(context.Background(), w, c, r, o)
}

// WriteContext is Write stopping with ctx's error once ctx is done: a
// page of many exchanges takes seconds to build and render.
func WriteContext(ctx context.Context, w io.Writer, c *tape.Capture, r *inspect.Report, o Options) error {
	v, err := buildPage(ctx, c, r, o)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(ctxWriter{ctx, w})
	if err := page.Execute(bw, v); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

type pageView struct {
	Title     string
	CSP       string
	CSS       template.CSS
	Generator string
	Capture   captureView
	Warnings  []string
	Index     []indexRow
	Exchanges []*exView
	// Of is the number of exchanges in the capture, when the report shows
	// only some of them.
	Of int
}

type captureView struct {
	Name, ID, Seam, Started, Upstream, Profile string
	// Insecure says upstream certificates went unverified.
	Insecure bool
	Switches []kv
	Notes    []string
}

type kv struct{ K, V string }

type indexRow struct {
	Ex                                int
	Anchor                            string
	Method, Endpoint, Model, Protocol string
	Status                            int
	Outcome                           string
	Verdict                           verdictView
}

func buildPage(ctx context.Context, c *tape.Capture, r *inspect.Report, o Options) (*pageView, error) {
	name := filepath.Base(c.Name)
	v := &pageView{
		Title:     "seam report: " + name,
		CSP:       contentPolicy,
		CSS:       template.CSS(styleSheet), // a constant of this package, never capture text
		Generator: strings.TrimSpace("seam " + o.Version),
	}
	// Warnings name the file as it was given; the page names it by its
	// base name only, so it shows no directory of the machine it was made on.
	for _, w := range r.Warnings {
		if c.Name != name {
			w = strings.ReplaceAll(w, c.Name, name)
		}
		v.Warnings = append(v.Warnings, w)
	}
	h := c.Header
	v.Capture = captureView{Name: name, ID: h.ID, Seam: h.Seam, Upstream: h.Upstream, Profile: h.Engine.Profile, Insecure: h.Insecure}
	if !h.Started.IsZero() {
		v.Capture.Started = h.Started.UTC().Format(time.RFC3339)
	}
	for _, k := range slices.Sorted(maps.Keys(h.Engine.Switches)) {
		v.Capture.Switches = append(v.Capture.Switches, kv{k, h.Engine.Switches[k]})
	}
	for _, n := range c.Notes {
		v.Capture.Notes = append(v.Capture.Notes, n.Text)
	}
	byEx := map[int]*tape.Exchange{}
	for _, x := range c.Exchanges {
		byEx[x.Ex] = x
	}
	for _, xr := range r.Exchanges {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ev := buildExchange(byEx[xr.Ex], xr, o)
		v.Exchanges = append(v.Exchanges, ev)
		v.Index = append(v.Index, indexRow{
			Ex: ev.Ex, Anchor: ev.Anchor, Method: xr.Method, Endpoint: xr.Endpoint, Model: xr.Model,
			Protocol: ev.Protocol, Status: xr.Status, Outcome: ev.Outcome, Verdict: ev.Verdict,
		})
	}
	if len(r.Exchanges) < len(c.Exchanges) {
		v.Of = len(c.Exchanges)
	}
	return v, nil
}

// ctxWriter writes to w until ctx is done, then fails with ctx's error.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
