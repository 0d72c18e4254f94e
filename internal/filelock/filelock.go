// Package filelock tells a capture file a live process is writing from one
// a process left behind when it died: the writer holds an advisory lock
// (flock) on the open file, which the system drops when the process ends,
// however it ends (kill -9 included). Where the system has no flock
// (Windows, Plan 9) nothing is locked and every file looks abandoned.
package filelock

import "os"

// Lock takes an exclusive lock on f, held until f is closed. It reports
// whether it did; a system without locks takes none.
func Lock(f *os.File) bool { return lock(f) }

// Held reports whether another open file (of this process or another)
// holds the lock on the file at path. A file that cannot be opened is not
// held.
func Held(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if !lock(f) {
		return supported
	}
	return false
}
