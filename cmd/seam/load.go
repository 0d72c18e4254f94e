package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/seam-dev/seam/tape"
)

// captureFiles expands args (files, directories, "-") into capture paths:
// a directory stands for the *.ndjson files in it.
func captureFiles(args []string) ([]string, error) {
	var paths []string
	for _, a := range args {
		if a == "-" {
			paths = append(paths, a)
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("open capture: %w", err)
		}
		if !st.IsDir() {
			paths = append(paths, a)
			continue
		}
		found, err := filepath.Glob(filepath.Join(a, "*.ndjson"))
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no *.ndjson captures in this directory", a)
		}
		sort.Strings(found)
		paths = append(paths, found...)
	}
	return paths, nil
}

// loadCapture reads one capture file, or stdin for "-".
func loadCapture(e *env, path string) (*tape.Capture, error) {
	if path == "-" {
		return tape.Read(e.stdin, "-")
	}
	return tape.ReadFile(path)
}

// loadCaptures reads every capture args name, printing decode warnings
// (such as a torn last line) to stderr.
func loadCaptures(e *env, args []string) ([]*tape.Capture, error) {
	paths, err := captureFiles(args)
	if err != nil {
		return nil, err
	}
	var caps []*tape.Capture
	for _, p := range paths {
		c, err := loadCapture(e, p)
		if err != nil {
			return nil, err
		}
		for _, w := range c.Warnings {
			fmt.Fprintf(e.stderr, "warning: %v\n", w)
		}
		caps = append(caps, c)
	}
	return caps, nil
}
