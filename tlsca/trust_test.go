package tlsca

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nobody is a user id that is not the test's.
const nobody = 65534

// TestDirectoryOthersCanWrite: a CA directory others can write in (a
// shared temporary directory, a group-writable one) is refused, before a
// CA is made in it and when one is there, naming the fix.
func TestDirectoryOthersCanWrite(t *testing.T) {
	for _, mode := range []os.FileMode{0o777, 0o1777, 0o770, 0o720} {
		dir := filepath.Join(t.TempDir(), "ca")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		_, _, err := Open(dir)
		if err == nil || !strings.Contains(err.Error(), "can be written by other users") || !strings.Contains(err.Error(), "chmod go-w") {
			t.Errorf("mode %04o: Open = %v, want refused", mode, err)
		}
		if _, err := os.Stat(filepath.Join(dir, KeyFile)); err == nil {
			t.Errorf("mode %04o: a key was written into the directory", mode)
		}
	}
	// A CA made in a private directory that later became writable by all.
	dir := filepath.Join(t.TempDir(), "ca")
	if _, _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "can be written by other users") {
		t.Errorf("Load of a world-writable CA directory = %v", err)
	}
}

// TestNotYours: a CA directory made first by another user (who could then
// know the key seam writes there, or swap it), and a key file another user
// owns, are refused. Changing owners needs root: skipped otherwise.
func TestNotYours(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown needs root")
	}
	// Another user made the directory before seam ran.
	theirs := filepath.Join(t.TempDir(), "seam-ca")
	if err := os.Mkdir(theirs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(theirs); err == nil || !strings.Contains(err.Error(), "belongs to user 65534") {
		t.Errorf("Open in another user's directory = %v, want refused", err)
	}
	if _, err := os.Stat(filepath.Join(theirs, KeyFile)); err == nil {
		t.Error("a key was written into another user's directory")
	}

	// A key file that another user owns, in a directory of ours.
	dir := filepath.Join(t.TempDir(), "seam-ca")
	if _, _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, KeyFile)
	if err := os.Chown(key, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "CA key "+key+" belongs to user 65534") {
		t.Errorf("Load with another user's key = %v, want refused", err)
	}
}

// TestCAFileFIFO: a CA file that is a named pipe is an error at once, not
// a wait for a writer.
func TestCAFileFIFO(t *testing.T) {
	for _, name := range []string{CertFile, KeyFile} {
		dir := filepath.Join(t.TempDir(), "ca")
		if _, _, err := Open(dir); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() { _, err := Load(dir); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s a pipe: Load = %v", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s a pipe: Load still waiting after 5 s", name)
		}
	}
}
