package textreport

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/seam-dev/seam/internal/units"
)

// Progress says how far a long run over many inputs has got, on a
// terminal only: a line rewritten in place at most four times a second,
// from one second in, and cleared by Done. It hears the bytes read
// through Read (it is a captures.Progress) and the input started through
// File.
type Progress struct {
	w      io.Writer
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

// NewProgress returns the progress line of a run called label over files
// inputs of total bytes (0 when unknown), drawn on w when on (w is a
// terminal).
func NewProgress(w io.Writer, on bool, label string, files int, total int64) *Progress {
	return &Progress{w: w, label: label, files: files, total: total, start: time.Now(), on: on}
}

// File says the run started on input i.
func (p *Progress) File(i int) {
	p.cur = i
	p.show()
}

// Read counts n bytes read.
func (p *Progress) Read(n int64) {
	if v := p.read.Add(n); p.on && v-p.tickAt > 1<<20 {
		p.tickAt = v
		p.show()
	}
}

func (p *Progress) show() {
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
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
}

// Done clears the progress line.
func (p *Progress) Done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
