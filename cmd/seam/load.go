package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// captureFiles expands args (files, directories, "-") into capture paths:
// a directory stands for the captures in it and its subdirectories,
// plain and zstd-compressed (see walkCaptures).
func captureFiles(ctx context.Context, e *env, args []string) ([]string, error) {
	var paths []string
	for _, a := range args {
		if a == "-" {
			paths = append(paths, a)
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, pathError(err)
		}
		if !st.IsDir() {
			paths = append(paths, a)
			continue
		}
		found, err := walkCaptures(ctx, e, a)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no captures (*.ndjson or *.ndjson.zst) in this directory or below it", a)
		}
		paths = append(paths, found...)
	}
	return paths, nil
}

// loadCaptures reads every capture args name (see openInput).
func loadCaptures(ctx context.Context, e *env, args []string) ([]*tape.Capture, error) {
	paths, err := captureFiles(ctx, e, args)
	if err != nil {
		return nil, err
	}
	var caps []*tape.Capture
	for _, p := range paths {
		c, err := openInput(ctx, e, p)
		if err != nil {
			return nil, err
		}
		caps = append(caps, c)
	}
	return caps, nil
}

// openInput reads a capture file, or any raw recording inspect.Import
// understands, from a path or "-" for stdin, whole, and prints its decode
// warnings (such as a torn last line) to stderr. Commands that can work
// exchange by exchange use openExchanges instead.
func openInput(ctx context.Context, e *env, path string) (*tape.Capture, error) {
	br, capture, done, err := openStream(ctx, e, path, nil)
	if err != nil {
		return nil, err
	}
	defer done()
	var c *tape.Capture
	if capture {
		c, err = tape.Read(br, path)
	} else {
		c, err = inspect.Import(br, path)
	}
	if err != nil {
		return nil, err
	}
	printWarnings(e, c.Warnings)
	return c, nil
}

// openStream opens path ("-" for stdin) for reading, decompressing it when
// it is zstd, and tells a capture from another tool's recording by its
// first line. It counts the bytes read into p when p is not nil, for a
// progress line. done closes the file.
func openStream(ctx context.Context, e *env, path string, p *progress) (br *bufio.Reader, capture bool, done func(), err error) {
	// The input is read a few MB ahead of the decoder, on a goroutine of
	// its own (readAhead), which also lets an interrupt end a read that
	// waits on a pipe.
	var ra *readAhead
	if path == "-" {
		ra = newReadAhead(ctx, e.stdin, 256<<10, 4)
		done = ra.Abandon
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, false, nil, pathError(err)
		}
		ra = newReadAhead(ctx, f, 256<<10, 4)
		done = func() {
			ra.Close()
			f.Close()
		}
	}
	var r io.Reader = ra
	if p != nil {
		r = &countingReader{r: r, p: p}
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
	return br, isCapture(head), done, nil
}

// pathError words a file system error as "PATH: what went wrong" (the
// operation, such as stat or open, says nothing to a user).
func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// isCapture reports whether head starts a seam capture file: its first
// non-blank line is a JSON object whose "type" is one of the capture's line
// types (a capture whose first line is not its header is a capture with an
// error, which tape reports, not a recording to import).
func isCapture(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if bytes.HasPrefix(head, []byte(`{"type":"capture"`)) {
		return true
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	switch gjson.GetBytes(line, "type").String() {
	case "capture", "request", "response", "chunk", "end":
		return gjson.GetBytes(line, "ex").Exists() || gjson.GetBytes(line, "v").Exists()
	}
	return false
}

// findExchange returns exchange n of c, or an error naming how many it has.
func findExchange(c *tape.Capture, n int) (*tape.Exchange, error) {
	for _, x := range c.Exchanges {
		if x.Ex == n {
			return x, nil
		}
	}
	return nil, noExchange(c.Name, n, len(c.Exchanges))
}

// noExchange says that the input at path, holding have exchanges, has no
// exchange n.
func noExchange(path string, n, have int) error {
	return fmt.Errorf("%s has no exchange %d (it has %d)", path, n, have)
}

// openReport reads a capture or raw recording for a report on it (see
// openInput) and checks that exchange ex (0: all) exists.
func openReport(ctx context.Context, e *env, path string, ex int) (*tape.Capture, error) {
	c, err := openInput(ctx, e, path)
	if err != nil {
		return nil, err
	}
	if ex != 0 {
		if _, err := findExchange(c, ex); err != nil {
			return nil, err
		}
	}
	return c, nil
}
