package tui

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"
	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/tape"
)

// The captures the TUI reads: a file read in place with ReadAt, a
// compressed or piped capture accumulated in memory as it streams, and
// files followed as they grow.

// capState is one capture source: a file read with ReadAt, or a stream
// accumulated in memory.
type capState struct {
	name string
	file *os.File
	// zfile is a compressed capture file, read through stream.
	zfile    *os.File
	mem      []byte
	stream   io.Reader
	readBuf  []byte // reused by every read of stream
	streamed bool   // the stream reached EOF
	follow   bool
	// arg is the capture's index in Options.Paths (after them for the
	// stream); the list orders captures by it, then by name.
	arg int
	// info identifies the file of a followed capture, so one renamed in a
	// followed directory is not opened twice.
	info     os.FileInfo
	warned   bool // the user was told it is not a readable capture
	ix       *indexer
	scanning bool
	header   *tape.Header
	hdr      span
	err      error
	warnings []string
	done     bool // the first full scan finished
}

// reader returns a ReaderAt over the source and its current size. For a
// memory source it is a snapshot: bytes before the size never change.
func (c *capState) reader() (io.ReaderAt, int64, bool) {
	if c.file != nil {
		return c.file, -1, true
	}
	return bytes.NewReader(c.mem), int64(len(c.mem)), false
}

// openPath opens the capture file p, or the capture files of directory p
// in name order. With follow, a directory is remembered to be listed again
// every tick, and may be empty.
func (m *model) openPath(arg int, p string, follow bool) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("open capture: %w", err)
	}
	st, err := f.Stat()
	if err != nil || !st.IsDir() {
		if !follow {
			// A capture that is not one this seam reads is refused before
			// anything is listed; a followed one may not be written yet.
			if err := captures.CheckHeader(f, p); err != nil {
				f.Close()
				return err
			}
		}
		var info os.FileInfo
		if follow && err == nil {
			info = st // its identity, for files appearing in followed directories
		}
		m.caps = append(m.caps, m.newFileCap(p, f, info, arg, follow, captures.IsCompressed(p, f)))
		return nil
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return fmt.Errorf("list %s: %w", p, err)
	}
	names := captures.Names(ents)
	if len(names) == 0 && !follow {
		return fmt.Errorf("%s: no *.ndjson captures (or *.ndjson.zst) in this directory", p)
	}
	d := &dirState{path: p, arg: arg, seen: map[string]bool{}}
	opened := 0
	for _, n := range names {
		path := filepath.Join(p, n)
		// Only regular files: opening a named pipe found in a directory
		// waits for a writer, maybe forever.
		f, err := tape.OpenRegular(path)
		if errors.Is(err, tape.ErrNotRegular) {
			m.setError("skipped " + err.Error())
			d.seen[n] = true
			continue
		}
		if err != nil {
			return fmt.Errorf("open capture: %w", err)
		}
		opened++
		if !follow {
			if err := captures.CheckHeader(f, path); err != nil {
				f.Close()
				return err
			}
		}
		var info os.FileInfo
		if follow {
			info, _ = f.Stat() // nil on error: only renames go unnoticed
		}
		m.caps = append(m.caps, m.newFileCap(path, f, info, arg, follow, captures.IsCompressed(path, f)))
		d.seen[n] = true
	}
	if opened == 0 && !follow {
		return fmt.Errorf("%s: no *.ndjson captures (or *.ndjson.zst) in this directory that are regular files", p)
	}
	if follow {
		m.dirs = append(m.dirs, d)
	}
	return nil
}

// newFileCap returns the source of the capture file f (opened from path).
// A plain capture is read in place with ReadAt, lazily; a compressed one
// (captures.IsCompressed, which reads the file and so is called where I/O
// may be done, never in Update) is decompressed as a stream into memory,
// and when followed, read on as it grows.
func (m *model) newFileCap(path string, f *os.File, info os.FileInfo, arg int, follow, compressed bool) *capState {
	if name, ok := m.names[path]; ok {
		path = name // the recording a capture was imported from
	}
	ix := newIndexer(path, len(m.caps))
	if !compressed {
		return &capState{name: path, file: f, info: info, arg: arg, follow: follow, ix: ix}
	}
	var src io.Reader = f
	if follow {
		src = captures.Tail(m.ctx, f, followEvery)
	}
	return &capState{name: path, zfile: f, stream: captures.Uncompressed(src), info: info, arg: arg, follow: follow, ix: ix}
}

// close releases the open files.
func (m *model) close() {
	for _, c := range m.caps {
		if c.file != nil {
			c.file.Close()
		}
		if c.zfile != nil {
			c.zfile.Close()
		}
	}
}

// following reports whether any source is followed.
func (m *model) following() bool {
	if len(m.dirs) > 0 {
		return true
	}
	for _, c := range m.caps {
		if c.follow && !(c.stream != nil && c.streamed) {
			return true
		}
	}
	return false
}

// readStream reads the next piece of the streamed capture i. One read is
// outstanding at a time, so every read reuses the source's buffer and the
// message carries a copy of what was read.
func (c *capState) readStream(i int) tea.Cmd {
	if c.readBuf == nil {
		c.readBuf = make([]byte, 256<<10)
	}
	buf, r := c.readBuf, c.stream
	return func() tea.Msg {
		n, err := r.Read(buf)
		return streamMsg{file: i, data: bytes.Clone(buf[:n]), err: err}
	}
}
