package tui

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/tape"
)

// dirState is a directory named in Options.Paths and followed: every tick
// it is listed again and the capture files that appeared in it are opened.
type dirState struct {
	path string
	// arg is the directory's index in Options.Paths; its files are ordered
	// with it, by name.
	arg int
	// seen holds the names of the last listing that were opened, are being
	// opened, or are the same file as one already open.
	seen    map[string]bool
	listing bool   // a listing command is outstanding
	err     string // the listing error last shown, so it is shown once
}

// Messages of followed directories.
type (
	dirMsg struct {
		dir   int
		names []string
		err   error
	}
	openedMsg struct {
		dir   int
		files []openedFile
	}
)

// openedFile is a capture file that appeared in a followed directory,
// opened by a command.
type openedFile struct {
	name string // the base name in the directory
	path string
	f    *os.File
	info os.FileInfo
	// compressed is captures.IsCompressed's answer, read in the command.
	compressed bool
	err        error
}

// listCmd lists followed directory i in a command: one readdir, nothing
// more.
func (m *model) listCmd(i int) tea.Cmd {
	d := m.dirs[i]
	if d.listing {
		return nil
	}
	d.listing = true
	path := d.path
	return func() tea.Msg {
		ents, err := os.ReadDir(path)
		if err != nil {
			return dirMsg{dir: i, err: fmt.Errorf("list %s: %w", path, err)}
		}
		return dirMsg{dir: i, names: captures.Names(ents)}
	}
}

// onDir opens, in a command, the files of a listing that were not seen
// before. Files that left the directory keep what was loaded of them.
func (m *model) onDir(msg dirMsg) tea.Cmd {
	d := m.dirs[msg.dir]
	d.listing = false
	if msg.err != nil {
		if e := msg.err.Error(); e != d.err {
			d.err = e
			m.setError(e)
		}
		return nil
	}
	d.err = ""
	var fresh []string
	for _, n := range msg.names {
		if !d.seen[n] {
			fresh = append(fresh, n)
		}
	}
	if len(fresh) == 0 && len(msg.names) == len(d.seen) {
		return nil // the usual tick: nothing changed
	}
	// Forget names that left, so a file created again under one is opened.
	seen := make(map[string]bool, len(msg.names))
	for _, n := range msg.names {
		seen[n] = true
	}
	d.seen = seen
	if len(fresh) == 0 {
		return nil
	}
	dir, path := msg.dir, d.path
	return func() tea.Msg {
		out := openedMsg{dir: dir}
		for _, n := range fresh {
			of := openedFile{name: n, path: filepath.Join(path, n)}
			of.f, of.err = tape.OpenRegular(of.path) // a named pipe would hold the command
			if of.err == nil {
				if of.info, of.err = of.f.Stat(); of.err != nil {
					of.f.Close()
				} else {
					of.compressed = captures.IsCompressed(of.path, of.f)
				}
			}
			if of.err != nil {
				of.err = fmt.Errorf("open capture: %w", of.err)
			}
			out.files = append(out.files, of)
		}
		return out
	}
}

// onOpened adds the captures that appeared in a followed directory and
// starts indexing them. A file already open under another name (renamed)
// is not added twice.
func (m *model) onOpened(msg openedMsg) tea.Cmd {
	d := m.dirs[msg.dir]
	var cmds []tea.Cmd
	for _, of := range msg.files {
		if of.err != nil {
			if errors.Is(of.err, fs.ErrNotExist) {
				delete(d.seen, of.name) // gone before it could be opened
				continue
			}
			m.setError(of.err.Error())
			continue
		}
		if m.isOpen(of.info) {
			of.f.Close()
			continue
		}
		i := len(m.caps)
		c := m.newFileCap(of.path, of.f, of.info, d.arg, true, of.compressed)
		m.caps = append(m.caps, c)
		if c.stream != nil {
			cmds = append(cmds, c.readStream(i))
		} else {
			cmds = append(cmds, m.scanCmd(i))
		}
	}
	m.rerank()
	return tea.Batch(cmds...)
}

// isOpen reports whether info is the file of a capture already open.
func (m *model) isOpen(info os.FileInfo) bool {
	for _, c := range m.caps {
		if c.info != nil && os.SameFile(c.info, info) {
			return true
		}
	}
	return false
}

// rerank orders the captures as the list shows them: by their place in
// Options.Paths, the files of a directory by name.
func (m *model) rerank() {
	idx := make([]int, len(m.caps))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		ca, cb := m.caps[a], m.caps[b]
		return cmp.Or(cmp.Compare(ca.arg, cb.arg), cmp.Compare(ca.name, cb.name), cmp.Compare(a, b))
	})
	m.rank = make([]int, len(m.caps))
	for r, i := range idx {
		m.rank[i] = r
	}
}

// waitingFor names the followed directories, for the list shown before any
// capture appeared in them.
func (m *model) waitingFor() string {
	names := make([]string, len(m.dirs))
	for i, d := range m.dirs {
		names[i] = d.path
	}
	return strings.Join(names, ", ")
}
