package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// page writes a fixed text.
func page(w io.Writer) error {
	_, err := io.WriteString(w, "<!doctype html>page\n")
	return err
}

// TestWriteRegular: a new name and an existing regular file are written
// whole, mode 0600 whatever the old file's; a failed write leaves the old
// file as it was and no temporary file.
func TestWriteRegular(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "new.html")
	old := filepath.Join(dir, "old.html")
	if err := os.WriteFile(old, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fresh, old} {
		n, err := Write(p, 0o600, page)
		if err != nil || n != 20 {
			t.Fatalf("%s: %d bytes, %v", p, n, err)
		}
		b, _ := os.ReadFile(p)
		st, _ := os.Stat(p)
		if string(b) != "<!doctype html>page\n" || st.Mode() != 0o600 {
			t.Errorf("%s: %q, mode %v; want the page, 0600", p, b, st.Mode())
		}
	}
	broke := errors.New("disk full")
	if _, err := Write(old, 0o600, func(w io.Writer) error { io.WriteString(w, "half"); return broke }); !errors.Is(err, broke) {
		t.Fatalf("failed write: %v", err)
	}
	if b, _ := os.ReadFile(old); string(b) != "<!doctype html>page\n" {
		t.Errorf("a failed write changed the file: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// TestWriteFIFO: a named pipe, named or behind a symbolic link (as a
// shell's >(…) hands one over), is written into: its reader gets the page
// and it is still a pipe, and the link still a link, afterwards. Before, a
// temporary file was renamed over it.
func TestWriteFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link.html")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link} {
		got := make(chan string, 1)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				got <- err.Error()
				return
			}
			defer f.Close()
			b, _ := io.ReadAll(f)
			got <- string(b)
		}()
		if _, err := Write(p, 0o600, page); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		select {
		case s := <-got:
			if s != "<!doctype html>page\n" {
				t.Errorf("%s: the reader got %q", p, s)
			}
		case <-time.After(30 * time.Second):
			// Generous: the bound is for a write that never reaches the
			// reader, not a speed (5 s failed once on a machine loaded
			// by a benchmark).
			t.Fatalf("%s: the pipe's reader got nothing in 30 s", p)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the pipe is no longer one: %v, %v", st.Mode(), err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link is no longer one: %v, %v", st.Mode(), err)
	}
}

// TestWriteDevice: a character device (a null device made in a temporary
// directory, as /dev/null is: root only) is written into and stays a
// device: "seam report -o /dev/null" as root made /dev/null a regular file.
func TestWriteDevice(t *testing.T) {
	dev := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		t.Skipf("mknod (root only): %v", err)
	}
	if _, err := Write(dev, 0o600, page); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(dev); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("the device is no longer one: %v, %v", st.Mode(), err)
	}
}

// TestWriteLinkToFile: a symbolic link to a regular file is refused (a
// link another user left in a shared directory would have root write
// where it points); the link and its target are left as they were. A link
// to nothing is refused too.
func TestWriteLinkToFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "passwd")
	if err := os.WriteFile(target, []byte("root:x:0:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "report.html")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(link, 0o600, page); !errors.Is(err, ErrLinkToFile) {
		t.Fatalf("got %v, want %v", err, ErrLinkToFile)
	}
	if b, _ := os.ReadFile(target); string(b) != "root:x:0:0\n" {
		t.Errorf("the target changed: %q", b)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link is no longer one: %v", err)
	}
	dangling := filepath.Join(dir, "dangling.html")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dangling, 0o600, page); err == nil {
		t.Fatal("a link to nothing was written through")
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file was created through the dangling link: %v", err)
	}
}
