package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/tui"
	"github.com/seam-dev/seam/visible"
)

// walkCaptures returns the captures in dir and its subdirectories: the
// files named as captures are (tape.HasCaptureExt: *.ndjson, *.ndjson.zst)
// whose first line is a capture header. Other files, such as the raw
// Ollama bodies a fixtures directory keeps beside its captures, are left
// out; name one on the command line to read it as a raw recording. They
// come in the order they were recorded (their headers' start times, the
// name breaking ties), so sessions link earlier turns first whatever the
// subdirectories; captures without a start time (imports) come after, by
// name. Only regular files are read (symbolic links to them included): a
// named pipe, a device or a socket with a capture's name is skipped with a
// note on stderr, since opening one can wait forever.
func walkCaptures(ctx context.Context, e *env, dir string) ([]string, error) {
	type found struct {
		path    string
		started time.Time
	}
	var all []found
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("list %s: %w", path, err)
		}
		if d.IsDir() || !tape.HasCaptureExt(d.Name()) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := captureHeader(path)
		if errors.Is(err, tape.ErrNotRegular) {
			fmt.Fprintf(e.stderr, "seam: note: skipped %s (name it as an argument to read it)\n", visible.String(err.Error()))
			return nil
		}
		if err != nil {
			return err
		}
		if h != nil {
			all = append(all, found{path, h.Started})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b found) int {
		switch {
		case a.started.IsZero() != b.started.IsZero():
			if a.started.IsZero() {
				return 1
			}
			return -1
		case !a.started.Equal(b.started):
			return a.started.Compare(b.started)
		}
		return strings.Compare(a.path, b.path)
	})
	paths := make([]string, len(all))
	for i, f := range all {
		paths[i] = f.path
	}
	return paths, nil
}

// captureHeader reads the header of the capture at path (decompressing a
// zstd one), or returns nil when the file does not start like a capture. A
// path that is not a regular file is an error wrapping tape.ErrNotRegular.
func captureHeader(path string) (*tape.Header, error) {
	f, err := tape.OpenRegular(path)
	if err != nil {
		return nil, pathError(err)
	}
	defer f.Close()
	r, err := tape.Uncompress(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(64)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, tape.ErrCutShort) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !isCapture(head) {
		return nil, nil
	}
	h, err := tape.NewExchangeReader(br, path).Header()
	if err != nil {
		// Listed all the same, without a time: reading it says what is
		// wrong with it.
		return &tape.Header{}, nil
	}
	return h, nil
}

// input names the capture an exchange came from: its path and header.
type input struct {
	path   string
	header tape.Header
}

// inspectInputs reads every input in paths exchange by exchange (holding
// only the exchanges in progress, not a capture) and inspects each with
// opts (Options.Sessions linking them across the inputs), calling fn with
// the exchange and its report in input order. Decode warnings go to stderr
// after each input, and a progress line too when stderr is a terminal and
// the run is long. It stops at the first error fn returns, or when ctx
// ends.
func inspectInputs(ctx context.Context, e *env, paths []string, label string, opts inspect.Options, fn func(in *input, x *tape.Exchange, rep *inspect.ExchangeReport) error) error {
	return inspectSome(ctx, e, paths, label, opts, nil, fn)
}

// inspectSome is inspectInputs reporting only the exchanges want selects
// (all when want is nil); the others are skimmed (Inspector.Skim), so the
// sessions and detectors of those reported see them.
func inspectSome(ctx context.Context, e *env, paths []string, label string, opts inspect.Options, want func(path string, ex int) bool, fn func(in *input, x *tape.Exchange, rep *inspect.ExchangeReport) error) error {
	batchGC(e)
	p := newProgress(e, label, paths)
	defer p.done()
	for i, path := range paths {
		p.file(i)
		if err := inspectInput(ctx, e, path, p, opts, want, fn); err != nil {
			return err
		}
	}
	return nil
}

func inspectInput(ctx context.Context, e *env, path string, p *progress, opts inspect.Options, want func(path string, ex int) bool, fn func(in *input, x *tape.Exchange, rep *inspect.ExchangeReport) error) error {
	src, h, done, err := openExchanges(ctx, e, path, p)
	if err != nil {
		return err
	}
	defer done()
	in := &input{path: path, header: *h}
	ins := inspect.NewInspector(path, *h, opts)
	pick := func(x *tape.Exchange) inspect.Pick {
		if want != nil && !want(path, x.Ex) {
			return inspect.PickSkim
		}
		return inspect.PickReport
	}
	err = ins.Run(ctx, src.Next, pick, func(x *tape.Exchange, rep *inspect.ExchangeReport) error {
		return fn(in, x, rep)
	})
	if err != nil {
		return err
	}
	printWarnings(e, src.Warnings())
	return nil
}

// countingReader counts the bytes read through it into a progress.
type countingReader struct {
	r io.Reader
	p *progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.add(int64(n))
	return n, err
}

// progress says on stderr how far a long run over many inputs has got, on
// a terminal only: a line rewritten in place at most four times a second,
// from one second in, and cleared at the end.
type progress struct {
	e      *env
	label  string
	on     bool
	total  int64
	files  int
	cur    int
	read   atomic.Int64
	start  time.Time
	last   time.Time
	shown  bool
	tickAt int64
}

func newProgress(e *env, label string, paths []string) *progress {
	p := &progress{e: e, label: label, files: len(paths), start: time.Now(), on: tui.IsTerminal(e.stderr)}
	for _, path := range paths {
		if st, err := os.Stat(path); err == nil && path != "-" {
			p.total += st.Size()
		}
	}
	return p
}

// file says the run started on input i.
func (p *progress) file(i int) {
	p.cur = i
	p.show()
}

// add counts n bytes read.
func (p *progress) add(n int64) {
	if p == nil {
		return
	}
	if v := p.read.Add(n); p.on && v-p.tickAt > 1<<20 {
		p.tickAt = v
		p.show()
	}
}

func (p *progress) show() {
	if !p.on || time.Since(p.start) < time.Second || time.Since(p.last) < 250*time.Millisecond {
		return
	}
	p.last, p.shown = time.Now(), true
	line := fmt.Sprintf("%s: %s", p.label, units.Bytes(p.read.Load()))
	if p.total > 0 {
		line += fmt.Sprintf(" of %s (%d%%)", units.Bytes(p.total), p.read.Load()*100/p.total)
	}
	if p.files > 1 {
		line += fmt.Sprintf(" · capture %d of %d", p.cur+1, p.files)
	}
	fmt.Fprintf(p.e.stderr, "\r\x1b[K%s", line)
}

// done clears the progress line.
func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.e.stderr, "\r\x1b[K")
	}
}

// rowOf is what a --where filter reads of an inspected exchange.
func rowOf(src *input, x *tape.Exchange, rep *inspect.ExchangeReport) *query.Row {
	var reqT int64
	if x.Request != nil {
		reqT = x.Request.T
	}
	return query.RowOf(src.path, src.header.Started, reqT, rep, func() string { return query.SearchText(x, rep) })
}

// parseWhere parses --where for command cmd; a mistake is a usage error.
func parseWhere(cmd, expr string) (*query.Filter, error) {
	f, err := query.ParseFilter(expr)
	if err != nil {
		return nil, &usageError{cmd: cmd, msg: "--where: " + err.Error(), example: "seam " + cmd + " --where 'model=gpt-5* outcome!=complete' captures/"}
	}
	return f, nil
}
