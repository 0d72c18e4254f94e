package captures

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/seam-dev/seam/bucket"
	"github.com/seam-dev/seam/convert"
	"github.com/seam-dev/seam/tape"
)

// Options says how inputs are opened.
type Options struct {
	// Stdin is what the path "-" reads; nil reads nothing.
	Stdin io.Reader
	// Progress, when set, counts the bytes read (compressed, as on disk).
	Progress Progress
	// Note, when set, hears what a directory walk skipped and why (a
	// named pipe with a capture's name); nil says nothing.
	Note func(msg string)
	// Warn, when set, hears the problems a reader skipped (a torn last
	// line, a second end line) once Load or Find has read the input.
	Warn func(error)
	// Bucket, when set, reads the s3:// inputs (see IsRemote); nil
	// refuses them.
	Bucket *bucket.Store
}

// Progress hears how far reading inputs got, for a progress line the
// caller draws. Its methods are called from the goroutine reading.
type Progress interface {
	// File says the run started on input i of those given.
	File(i int)
	// Read counts n more bytes read.
	Read(n int64)
}

// Size returns the total size of the files among paths ("-", objects in a
// store and files that cannot be stat'ed count nothing), for a progress
// line's total.
func Size(paths []string) int64 {
	var total int64
	for _, path := range paths {
		if IsRemote(path) {
			continue
		}
		if st, err := os.Stat(path); err == nil && path != "-" {
			total += st.Size()
		}
	}
	return total
}

// Source hands over a capture's exchanges one at a time: a capture file is
// read by a tape.ExchangeReader, holding only the exchanges in progress;
// an imported recording is held whole (it was converted in memory).
type Source struct {
	path   string
	o      Options
	header *tape.Header
	next   exchangeSource
	close  func()
}

// exchangeSource is what a Source reads from.
type exchangeSource interface {
	Header() (*tape.Header, error)
	Next() (*tape.Exchange, error)
	Only(keep func(ex int) bool)
	Warnings() []error
	Notes() []tape.Note
}

// Open opens the capture or raw recording at path ("-" for o.Stdin) for
// reading exchange by exchange and reads its header. Close releases it.
func Open(ctx context.Context, path string, o Options) (*Source, error) {
	br, capture, done, err := openStream(ctx, path, o)
	if err != nil {
		return nil, err
	}
	s := &Source{path: path, o: o, close: done}
	if capture {
		s.next = tape.NewExchangeReader(br, path)
	} else {
		c, err := convert.Import(br, path)
		done()
		if err != nil {
			return nil, err
		}
		s.next, s.close = &heldExchanges{c: c}, func() {}
	}
	if s.header, err = s.next.Header(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// Path returns the path the source was opened from.
func (s *Source) Path() string { return s.path }

// Header returns the capture header.
func (s *Source) Header() *tape.Header { return s.header }

// Next returns the next exchange, or io.EOF after the last.
func (s *Source) Next() (*tape.Exchange, error) { return s.next.Next() }

// Only restricts the exchanges handed over to those keep selects.
func (s *Source) Only(keep func(ex int) bool) { s.next.Only(keep) }

// Warnings returns the problems skipped so far.
func (s *Source) Warnings() []error { return s.next.Warnings() }

// Notes returns the notes on the capture as a whole read so far.
func (s *Source) Notes() []tape.Note { return s.next.Notes() }

// Close releases the file.
func (s *Source) Close() { s.close() }

// Find reads the source to its end gathering only exchange n's lines (a
// continuation joined to it, see tape.Exchange.Merge), and returns it; an
// input without it is a *NoExchangeError. Options.Warn hears the warnings
// once the input is read.
func (s *Source) Find(n int) (*tape.Exchange, error) {
	seen := map[int]bool{}
	s.Only(func(ex int) bool {
		seen[ex] = true
		return ex == n
	})
	var found *tape.Exchange
	for {
		x, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if found == nil {
			found = x
			continue
		}
		// Lines of the exchange that came after it was complete.
		found.Merge(x)
	}
	warn(s.o, s.Warnings())
	if found == nil {
		return nil, &NoExchangeError{Path: s.path, Ex: n, Have: len(seen)}
	}
	return found, nil
}

// heldExchanges is an exchangeSource over a capture held in memory.
type heldExchanges struct {
	c    *tape.Capture
	i    int
	keep func(int) bool
}

func (s *heldExchanges) Header() (*tape.Header, error) { return &s.c.Header, nil }
func (s *heldExchanges) Only(keep func(int) bool)      { s.keep = keep }
func (s *heldExchanges) Warnings() []error             { return s.c.Warnings }
func (s *heldExchanges) Notes() []tape.Note            { return s.c.Notes }

func (s *heldExchanges) Next() (*tape.Exchange, error) {
	for s.i < len(s.c.Exchanges) {
		x := s.c.Exchanges[s.i]
		s.c.Exchanges[s.i] = nil
		s.i++
		if s.keep == nil || s.keep(x.Ex) {
			return x, nil
		}
	}
	return nil, io.EOF
}

// Load reads a capture file, or any raw recording convert.Import
// understands, from a path or "-" for stdin, whole; o.Warn hears its
// decode warnings (such as a torn last line). Work that can go exchange by
// exchange uses Open instead.
func Load(ctx context.Context, path string, o Options) (*tape.Capture, error) {
	br, capture, done, err := openStream(ctx, path, o)
	if err != nil {
		return nil, err
	}
	defer done()
	var c *tape.Capture
	if capture {
		c, err = tape.Read(br, path)
	} else {
		c, err = convert.Import(br, path)
	}
	if err != nil {
		return nil, err
	}
	warn(o, c.Warnings)
	return c, nil
}

// LoadAll reads every capture args name (see Expand and Load).
func LoadAll(ctx context.Context, args []string, o Options) ([]*tape.Capture, error) {
	paths, err := Expand(ctx, args, o)
	if err != nil {
		return nil, err
	}
	var caps []*tape.Capture
	for _, p := range paths {
		c, err := Load(ctx, p, o)
		if err != nil {
			return nil, err
		}
		caps = append(caps, c)
	}
	return caps, nil
}

// Exchange returns exchange n of c, or a *NoExchangeError.
func Exchange(c *tape.Capture, n int) (*tape.Exchange, error) {
	for _, x := range c.Exchanges {
		if x.Ex == n {
			return x, nil
		}
	}
	return nil, &NoExchangeError{Path: c.Name, Ex: n, Have: len(c.Exchanges)}
}

// NoExchangeError says that an input has no exchange of the number asked
// for.
type NoExchangeError struct {
	Path string
	Ex   int
	// Have is how many exchanges the input holds.
	Have int
}

func (e *NoExchangeError) Error() string {
	return fmt.Sprintf("%s has no exchange %d (it has %d)", e.Path, e.Ex, e.Have)
}

func warn(o Options, ws []error) {
	if o.Warn == nil {
		return
	}
	for _, w := range ws {
		o.Warn(w)
	}
}

// openStream opens path ("-" for o.Stdin) for reading, decompressing it
// when it is zstd, and tells a capture from another tool's recording by
// its first line. It counts the bytes read into o.Progress. done closes
// the file.
func openStream(ctx context.Context, path string, o Options) (br *bufio.Reader, capture bool, done func(), err error) {
	// The input is read a few MB ahead of the decoder, on a goroutine of
	// its own (readAhead), which also lets an interrupt end a read that
	// waits on a pipe.
	var ra *readAhead
	if path == "-" {
		stdin := o.Stdin
		if stdin == nil {
			stdin = eofReader{}
		}
		ra = newReadAhead(ctx, stdin, 256<<10, 4)
		done = ra.Abandon
	} else if IsRemote(path) {
		body, err := openRemote(ctx, path, o)
		if err != nil {
			return nil, false, nil, err
		}
		ra = newReadAhead(ctx, body, 256<<10, 4)
		done = func() {
			body.Close() // ends a read in progress
			ra.Close()
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, false, nil, PathError(err)
		}
		ra = newReadAhead(ctx, f, 256<<10, 4)
		done = func() {
			ra.Close()
			f.Close()
		}
	}
	var r io.Reader = ra
	if o.Progress != nil {
		r = &countingReader{r: r, p: o.Progress}
	}
	u, err := tape.Uncompress(r)
	if err != nil {
		done()
		return nil, false, nil, fmt.Errorf("read %s: %w", path, err)
	}
	br = bufio.NewReaderSize(u, 64<<10)
	head, err := br.Peek(64 << 10)
	// A compressed capture cut short (killed mid-block) is read up to the
	// cut, which the decoder reports as a warning.
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull && !errors.Is(err, tape.ErrCutShort) {
		done()
		return nil, false, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return br, IsCapture(head), done, nil
}

// eofReader is an empty stdin.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// countingReader counts the bytes read through it into a Progress.
type countingReader struct {
	r io.Reader
	p Progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.Read(int64(n))
	return n, err
}

// PathError words a file system error as "PATH: what went wrong" (the
// operation, such as stat or open, says nothing to a user).
func PathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}
